package catalog

// The words of written workers (issue 30): what is wrong with a student's
// program, where, and what to do. Kept in a file of their own and merged
// into each language's map when the package starts (after id.go and en.go,
// which sort before it).
func init() {
	merge("id", map[string]string{
		"program.title":             "Tulis logika %s",
		"program.editor":            "Program (Starlark)",
		"program.run":               "Jalankan di dunia",
		"program.submit":            "Kirim untuk dinilai",
		"program.at":                "baris %d, kolom %d: ",
		"program.in":                "di %s: ",
		"program.detail":            " (kata interpreter: %s)",
		"program.err.syntax":        "kode ini tidak bisa dibaca; periksa tanda kurung, titik dua dan indentasi",
		"program.err.runtime":       "kode ini gagal saat berjalan",
		"program.err.size-source":   "program terlalu panjang: paling banyak %s bita",
		"program.err.size-value":    "nilai yang kamu buat terlalu besar: paling banyak %s elemen atau karakter",
		"program.err.state-data":    "%s hanya boleh berisi data biasa: None, bool, angka, teks, list, tuple, dict",
		"program.err.steps-call":    "handler ini tidak selesai dalam %s langkah: ada perulangan yang terlalu panjang? Mesin menghentikannya",
		"program.err.steps-run":     "program sudah memakai semua %s langkah untuk satu jalannya simulasi",
		"program.err.handler-shape": "%s harus fungsi dengan dua parameter: (w, ev)",
		"program.err.handler-start": "program butuh def on_start(w, ev): di situlah pekerja mulai",
		"program.err.augmented":     "tulis x = x + y di sini: operator seperti += hanya untuk nama, indeks atau atribut tanpa panggilan fungsi",
		"program.err.method":        "metode .%s tidak tersedia di lab ini",
		"program.err.action-denied": "lab ini tidak mengizinkan aksi w.%s",
		"program.err.actions":       "satu handler boleh meminta paling banyak %s aksi",
		"program.act.key":           "kunci yang ditulis harus kunci yang dikenal lab ini, seperti \"data\"",
		"program.act.tag":           "tag perpanjangan harus angka dari 0 sampai 2147483648",
		"program.act.at":            "waktu timer harus angka milidetik yang tidak negatif",
		"program.act.timers":        "paling banyak 4 timer boleh menyala bersamaan; batalkan yang tidak dipakai",
		"program.act.kind":          "aksi ini tidak dikenal",
		"program.verdict.pass":      "Lulus: %d jadwal, tidak ada yang membuat pekerjamu bertindak tanpa lease.",
		"program.verdict.fail":      "Belum lulus: jadwal %d gagal pada %s.",
		"program.verdict.line":      "Kode yang bertindak: baris %d.",
		"program.verdict.fault":     "Programmu gagal: %s",
		"program.verdict.survive":   "Pekerjamu harus tetap bekerja melewati gangguan kecil ini, tetapi berhenti atau tidak menulis.",
		"program.verdict.compile":   "Program belum bisa dijalankan: %s",
	})
	merge("en", map[string]string{
		"program.title":             "Write %s's logic",
		"program.editor":            "Program (Starlark)",
		"program.run":               "Run in the world",
		"program.submit":            "Submit for judging",
		"program.at":                "line %d, column %d: ",
		"program.in":                "in %s: ",
		"program.detail":            " (the interpreter says: %s)",
		"program.err.syntax":        "this code cannot be read; check brackets, colons and indentation",
		"program.err.runtime":       "this code failed as it ran",
		"program.err.size-source":   "the program is too long: at most %s bytes",
		"program.err.size-value":    "a value you built is too large: at most %s elements or characters",
		"program.err.state-data":    "%s may hold plain data only: None, bool, numbers, text, list, tuple, dict",
		"program.err.steps-call":    "this handler did not finish within %s steps: a loop that runs too long? The engine stopped it",
		"program.err.steps-run":     "the program has used all its %s steps for one run of the world",
		"program.err.handler-shape": "%s must be a function of two parameters: (w, ev)",
		"program.err.handler-start": "the program needs def on_start(w, ev): that is where the worker begins",
		"program.err.augmented":     "write x = x + y here: operators like += work only on names, indexes or attributes without calls",
		"program.err.method":        "the method .%s is not available in this lab",
		"program.err.action-denied": "this lab does not allow the action w.%s",
		"program.err.actions":       "one handler may ask for at most %s actions",
		"program.act.key":           "the key written must be one this lab knows, such as \"data\"",
		"program.act.tag":           "a renewal tag must be a number from 0 to 2147483648",
		"program.act.at":            "a timer's time must be a number of milliseconds, not negative",
		"program.act.timers":        "at most 4 timers may be set at once; cancel the ones you do not use",
		"program.act.kind":          "this action is unknown",
		"program.verdict.pass":      "Passed: %d schedules, none made your worker act without its lease.",
		"program.verdict.fail":      "Not yet: schedule %d fails at %s.",
		"program.verdict.line":      "The code that acted: line %d.",
		"program.verdict.fault":     "Your program failed: %s",
		"program.verdict.survive":   "Your worker must keep working through this small fault, but it stopped or did not write.",
		"program.verdict.compile":   "The program cannot run yet: %s",
	})
}

func merge(lang string, m map[string]string) {
	for k, v := range m {
		texts[lang][k] = v
	}
}
