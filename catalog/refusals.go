package catalog

// The words of what a page or socket asked that cannot be done, and why
// (issue 51): a question, choice or goal the lab does not have (an
// answer of kilobytes says its size, not itself), and a search whose
// process was stopped from outside or failed.
func init() {
	register("id", map[string]string{
		"err.answer.question": "lab ini tidak punya pertanyaan %q",
		"err.answer.choice":   "%q bukan salah satu pilihan pertanyaan ini",
		"err.answer.long":     "jawaban ini panjangnya %d bita, jadi bukan salah satu pilihan pertanyaan ini: pilih salah satu pilihannya",
		"err.goal.unknown":    "lab ini tidak punya tugas %q",
		"err.search.stopped":  "pencarian dihentikan sebelum selesai: prosesnya diakhiri dari luar, misalnya karena server dimulai ulang. Minta lagi sebentar lagi",
		"err.search.failed":   "pencarian gagal sebelum memberi putusan. Minta lagi sebentar lagi",
	})
	register("en", map[string]string{
		"err.answer.question": "this lab has no question %q",
		"err.answer.choice":   "%q is not one of this question's choices",
		"err.answer.long":     "this answer is %d bytes long, so it is not one of this question's choices: pick one of them",
		"err.goal.unknown":    "this lab has no goal %q",
		"err.search.stopped":  "the search was stopped before it finished: its process was ended from outside, for instance as the server restarted. Ask again in a moment",
		"err.search.failed":   "the search failed before giving a verdict. Ask again in a moment",
	})
}
