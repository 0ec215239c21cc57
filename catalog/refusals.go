package catalog

// The words of what a page or socket asked that cannot be done, and why
// (issue 51): a question, choice or goal the lab does not have (an
// answer of kilobytes says its size, not itself), a search whose process
// was stopped from outside or failed, a student refused for their own
// flood of requests (not their room's address), a class with no seat left
// and a question voted on as often as it may be (web.classErr named
// these two keys without a text: TestEveryErrorHasText found them).
var (
	_ = register("id", map[string]string{
		"err.answer.question": "lab ini tidak punya pertanyaan %q",
		"err.answer.choice":   "%q bukan salah satu pilihan pertanyaan ini",
		"err.answer.long":     "jawaban ini panjangnya %d bita, jadi bukan salah satu pilihan pertanyaan ini: pilih salah satu pilihannya",
		"err.goal.unknown":    "lab ini tidak punya tugas %q",
		"err.search.stopped":  "pencarian dihentikan sebelum selesai: prosesnya diakhiri dari luar, misalnya karena server dimulai ulang. Minta lagi sebentar lagi",
		"err.search.failed":   "pencarian gagal sebelum memberi putusan. Minta lagi sebentar lagi",
		"busy.student":        "Kamu baru saja mengirim sangat banyak permintaan. Tunggu beberapa detik, lalu coba lagi; jawabanmu yang sudah tersimpan tidak hilang.",
		"class.full":          "Kelas ini sudah penuh: tidak ada kursi lagi untuk mahasiswa baru. Beri tahu pengajarmu.",
		"class.roundlimit":    "Pertanyaan ini sudah dua kali dipakai untuk pemungutan suara, sebanyak yang boleh. Pilih pertanyaan lain.",
	})
	_ = register("en", map[string]string{
		"err.answer.question": "this lab has no question %q",
		"err.answer.choice":   "%q is not one of this question's choices",
		"err.answer.long":     "this answer is %d bytes long, so it is not one of this question's choices: pick one of them",
		"err.goal.unknown":    "this lab has no goal %q",
		"err.search.stopped":  "the search was stopped before it finished: its process was ended from outside, for instance as the server restarted. Ask again in a moment",
		"err.search.failed":   "the search failed before giving a verdict. Ask again in a moment",
		"busy.student":        "You have just sent a great many requests. Wait a few seconds, then try again; the answers you saved are not lost.",
		"class.full":          "This class is full: there is no seat left for another student. Tell your instructor.",
		"class.roundlimit":    "This question has been voted on twice already, as often as one may be. Choose another question.",
	})
)
