package labs_test

import (
	"fmt"

	"leaselab/content"
	"leaselab/labs"
)

func ExampleLab_CheckQuestion() {
	course, err := labs.Load(content.FS)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := course.Lab("w1-w2").CheckQuestion("storage-checks", "overwrites", "en")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Correct, v.Right)
	fmt.Println(v.Summary)
	for _, e := range v.Evidence {
		fmt.Printf("%5s  %s\n", e.Event.T, e.Text)
	}
	// Output:
	// false rejected
	// Not quite: in the engine's run, W1's write with token 7 is rejected.
	//   20s  the storage accepts file from W2 with token 8 (highest: 8)
	//   29s  W1 writes file with token 7
	//   29s  the storage rejects file from W1 with token 7 (stale token: 7 < 8)
}
