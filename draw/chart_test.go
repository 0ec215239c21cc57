package draw

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"leaselab/catalog"
	"leaselab/engine"
	"leaselab/labs"
)

// The chart of time left at each renewal, for the renew-load lab's two
// questions: in lockstep the time left sinks to a fraction of the margin;
// with jitter it stays higher. The numbers come from the engine's runs.
func TestRemainingChartShowsCongestion(t *testing.T) {
	c, err := embeddedCourse()
	if err != nil {
		t.Fatal(err)
	}
	lab := c.Lab("renew-load")
	if lab == nil {
		t.Fatal("no renew-load lab")
	}
	var runs []ChartRun
	var lows []engine.Time
	for _, qid := range []string{"synchronized", "jittered"} {
		w, _, _, err := lab.Question(qid).RunQuestion()
		if err != nil {
			t.Fatal(err)
		}
		m := w.Metrics()
		if len(m.Remaining) < 20 {
			t.Fatalf("%s: only %d renewals", qid, len(m.Remaining))
		}
		lows = append(lows, engine.Percentile(m.Remaining, 10))
		runs = append(runs, ChartRun{Label: qid, World: w})
	}
	if lows[0] >= lows[1] {
		t.Fatalf("10th percentile of time left: %s in lockstep, %s with jitter; jitter should leave more", lows[0], lows[1])
	}
	for _, lang := range labs.Langs {
		var b bytes.Buffer
		if err := RenderChartSVG(&b, "c", lang, runs); err != nil {
			t.Fatal(err)
		}
		svg := b.String()
		dec := xml.NewDecoder(strings.NewReader(svg))
		circles, texts := 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the chart is not well-formed XML: %v", lang, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				switch se.Name.Local {
				case "circle":
					circles++
				case "text":
					texts++
				}
			}
		}
		want := len(runs[0].World.Metrics().Remaining) + len(runs[1].World.Metrics().Remaining)
		if circles != want {
			t.Errorf("%s: %d dots, want one per successful renewal (%d)", lang, circles, want)
		}
		if !strings.Contains(svg, catalog.T(lang, "chart.title")) || !strings.Contains(svg, catalog.T(lang, "chart.median")) {
			t.Errorf("%s: chart lacks its title or summary", lang)
		}
	}
}
