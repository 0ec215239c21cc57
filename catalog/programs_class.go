package catalog

// The texts of a class's programs (issue 49): the dashboard's panel of
// what the students submitted in a program lab, and the failing program
// the lecturer puts on the projector without its student.
var (
	_ = register("id", map[string]string{
		"programs.h":              "Program kelas di lab ini",
		"programs.counts":         "%d dari %d mahasiswa mengirim program: %d lulus, %d dipatahkan sebuah jadwal, %d gagal sendiri (berhenti karena programnya, terlalu lambat, atau belum bisa dijalankan).",
		"programs.commonest":      "Jadwal yang paling sering mematahkan: %s (%d dari %d program yang gagal).",
		"programs.other":          "%s: %d program",
		"programs.nofault":        "tanpa gangguan apa pun",
		"programs.empty":          "Belum ada yang mengirim program di lab ini.",
		"programs.show":           "Tampilkan satu program yang gagal di proyektor",
		"programs.show.label":     "Program di proyektor",
		"programs.next":           "Program gagal berikutnya",
		"programs.prev":           "Sebelumnya",
		"programs.hide":           "Turunkan dari proyektor",
		"programs.shown.note":     "Sekarang di proyektor, tanpa nama panggilan atau NIM pengirimnya:",
		"programs.shown.h":        "Program yang gagal (%d dari %d), tanpa nama",
		"programs.shown.schedule": "Jadwal yang mematahkannya",
		"programs.shown.line":     "Kejadian penentu pada %s; kode yang bertindak: baris %d.",
		"programs.shown.at":       "Kejadian penentu pada %s.",
		"programs.open":           "Buka program ini di lab, dengan putusan dan diagramnya",
		"programs.none":           "Tidak ada program yang gagal di lab kelas ini untuk ditampilkan.",
		"programs.note":           "Yang dihitung adalah program terakhir tiap mahasiswa, sebagaimana dinilai mesin. Unduhan CSV dan JSON memuat program terakhir tiap mahasiswa beserta hasilnya.",
	})
	_ = register("en", map[string]string{
		"programs.h":              "The class's programs in this lab",
		"programs.counts":         "%d of %d students submitted a program: %d passed, %d broken by a schedule, %d failed by themselves (stopped by their own program, too slow, or not runnable).",
		"programs.commonest":      "The schedule that breaks them most often: %s (%d of %d failing programs).",
		"programs.other":          "%s: %d program(s)",
		"programs.nofault":        "no fault at all",
		"programs.empty":          "No one has submitted a program in this lab yet.",
		"programs.show":           "Show a failing program on the projector",
		"programs.show.label":     "Program on the projector",
		"programs.next":           "Next failing program",
		"programs.prev":           "Previous",
		"programs.hide":           "Take it off the projector",
		"programs.shown.note":     "On the projector now, without its author's nickname or NIM:",
		"programs.shown.h":        "A failing program (%d of %d), anonymous",
		"programs.shown.schedule": "The schedule that breaks it",
		"programs.shown.line":     "The deciding event at %s; the code that acted: line %d.",
		"programs.shown.at":       "The deciding event at %s.",
		"programs.open":           "Open this program in the lab, with its verdict and diagram",
		"programs.none":           "No program of the class's lab fails: nothing to show.",
		"programs.note":           "Each student's last program counts, as the engine judged it. The CSV and JSON downloads hold each student's last program and its verdict.",
	})
)
