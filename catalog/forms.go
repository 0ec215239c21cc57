package catalog

// The texts of the class forms' guards (issues 50 and 51): a form from
// another site's page, a body too large, joins too fast, keys guessed,
// a blank class name, joining a second class, and the instructor
// removing a join that is no student.
var (
	_ = register("id", map[string]string{
		"form.foreign.title":  "Formulir dari halaman lain",
		"form.foreign":        "Permintaan ini datang dari halaman situs lain, jadi tidak dijalankan: kelas, jawaban dan keanggotaanmu tidak berubah. Kirim formulirnya dari halaman leaselab sendiri.",
		"form.toolarge":       "Formulir ini jauh lebih besar daripada yang dikirim halaman leaselab, jadi tidak dibaca.",
		"class.noname":        "Beri kelasmu nama, misalnya «Sistem Terdistribusi A»: nama itu yang dilihat mahasiswamu.",
		"join.rate":           "Banyak mahasiswa sedang bergabung dari jaringanmu. Tunggu %d detik, lalu tekan «Bergabung» lagi.",
		"join.busy":           "Banyak mahasiswa sedang bergabung ke kelas ini. Tunggu %d detik, lalu tekan «Bergabung» lagi.",
		"join.seats":          "Sudah %d mahasiswa kelas ini bergabung dari jaringanmu, sebanyak yang boleh dari satu jaringan. Beri tahu pengajarmu.",
		"join.locked":         "Terlalu banyak kunci yang salah dicoba dari jaringanmu. Tunggu %d detik, lalu coba kuncimu lagi.",
		"join.switch.title":   "Pindah kelas?",
		"join.switch.text":    "Peramban ini sedang di kelas %s (kode %s). Bergabung ke kelas %s mengeluarkanmu dari kelas itu di peramban ini. Jawabanmu di sana tetap tersimpan.",
		"join.switch.key":     "Kuncimu di kelas %s: %s. Dengan kode dan kunci itu kamu bisa kembali.",
		"join.switch.yes":     "Bergabung ke %s",
		"join.switch.no":      "Tetap di %s",
		"teach.remove":        "Keluarkan",
		"teach.remove.label":  "Keluarkan %s dari kelas",
		"teach.remove.head":   "Bukan mahasiswa?",
		"teach.remove.note":   "Bergabung yang bukan mahasiswa (misalnya dari sebuah skrip) bisa kamu keluarkan: kursinya kosong lagi, dan jawabannya tidak dihitung.",
		"teach.remove.absent": "Mahasiswa itu sudah tidak ada di kelas ini.",
	})
	_ = register("en", map[string]string{
		"form.foreign.title":  "A form from another page",
		"form.foreign":        "This request came from another site's page, so it was not carried out: your class, your answers and your place in the class are unchanged. Send the form from leaselab's own page.",
		"form.toolarge":       "This form is far larger than leaselab's pages send, so it was not read.",
		"class.noname":        "Give your class a name, such as “Distributed Systems A”: it is what your students see.",
		"join.rate":           "Many students are joining from your network right now. Wait %d seconds, then press Join again.",
		"join.busy":           "Many students are joining this class right now. Wait %d seconds, then press Join again.",
		"join.seats":          "%d students of this class have joined from your network already, as many as one network may. Tell your instructor.",
		"join.locked":         "Too many wrong keys were tried from your network. Wait %d seconds, then try your key again.",
		"join.switch.title":   "Change classes?",
		"join.switch.text":    "This browser is in the class %s (code %s). Joining the class %s takes you out of it in this browser. Your answers there are kept.",
		"join.switch.key":     "Your key in %s: %s. With the code and that key you can come back.",
		"join.switch.yes":     "Join %s",
		"join.switch.no":      "Stay in %s",
		"teach.remove":        "Remove",
		"teach.remove.label":  "Remove %s from the class",
		"teach.remove.head":   "Not a student?",
		"teach.remove.note":   "A join that is no student (a script's, say) can be removed: its seat is free again, and its answers no longer count.",
		"teach.remove.absent": "That student is no longer in this class.",
	})
)
