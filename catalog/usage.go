package catalog

// How the command line says, in Indonesian, a mistake in how a command
// was called (cmd/leaselab: a flag it does not know, a flag without its
// value, a value of the wrong form, arguments that do not fit), by the
// English format. A flag, a command and a value the reader typed stay
// as they are: syntax, quoted «…».
var _ = registerMessages("id", map[string]string{
	"Run \"leaselab %s --help\" for usage.":    "Jalankan «leaselab %s --help» untuk melihat cara memakainya.",
	"unknown flag --%s":                        "opsi «--%s» tidak dikenal",
	"--%s needs a value":                       "opsi «--%s» perlu diberi nilai",
	"--%s=%s: %s":                              "«--%s=%s»: %s",
	"want a duration such as 15m or 90s":       "isi dengan lama waktu, misalnya «15m» atau «90s»",
	"want a whole number such as %s":           "isi dengan bilangan bulat, misalnya «%s»",
	"want a number such as %s":                 "isi dengan angka, misalnya «%s»",
	"want true or false":                       "isi dengan «true» atau «false»",
	"want one of %s":                           "isi dengan salah satu dari: %s",
	"which lab? give a lab id or a lab.yaml":   "lab yang mana? Tulis id sebuah lab atau sebuah file «lab.yaml»",
	"takes one lab, got %q and %q":             "hanya menerima satu lab, tetapi tertulis %q dan %q",
	"takes one folder, got %d arguments":       "hanya menerima satu folder, tetapi tertulis %d argumen",
	"takes one program lab":                    "hanya menerima satu lab yang worker-nya ditulis sendiri",
	"unexpected argument %q":                   "argumen %q tidak diharapkan",
	"--vs-at goes with --vs":                   "«--vs-at» hanya dipakai bersama «--vs»",
	"--judge and --schedule go with --program": "«--judge» dan «--schedule» hanya dipakai bersama «--program»",
	"--schedule plays a judgement's schedule: it goes with none of --judge, --do, --vs, --question": "«--schedule» memutar satu jadwal penilaian: ia tidak dipakai bersama «--judge», «--do», «--vs», atau «--question»",
	"--vs compares two live runs of the lab; it goes with neither --question nor --format chart":    "«--vs» membandingkan dua simulasi lab; ia tidak dipakai bersama «--question» atau «--format chart»",
	"the command is \"leaselab class new [flags]\"":                                                 "perintahnya «leaselab class new [opsi]»",
	"--lang: want one of %s":                                    "«--lang»: isi dengan salah satu dari: %s",
	"--base-url: want a URL such as https://leases.example.edu": "«--base-url»: isi dengan alamat web, misalnya «https://leases.example.edu»",
	"--name: %v":                                       "«--name»: %v",
	"--class-retention must be at least 1h":            "«--class-retention» paling sedikit «1h»",
	"--database: want a URL starting with postgres://": "«--database»: isi dengan alamat yang diawali «postgres://»",
	"--data needs a folder":                            "«--data» perlu diberi sebuah folder",
})

// A program lab's refusal to compare a program that has not passed with
// the reference (labs.ErrNotPassed), which check's message test reads
// among the messages the labs package may say.
var _ = registerMessages("id", map[string]string{
	"compare with the reference: only a program that passed": "bandingkan dengan rujukan: hanya untuk program yang sudah lulus",
})
