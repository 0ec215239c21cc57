package catalog

import "leaselab/engine"

// The texts of the mechanisms issue 45 made playable ("claims still only
// told"): a file written in parts, whose parts two writers can mix; a
// commit by rename, whose temporary name nobody reads and whose rename
// the storage checks; tokens that are the index of the grant's entry in
// the coordinator's log, or (not fencing tokens) etcd's lease IDs.
var (
	_ = register("id", map[string]string{
		"event.part":          "bagian ke-%d %s",
		"event.part.of":       "bagian ke-%d dari %d bagian %s",
		"event.write.rename":  "%s meminta rename %s menjadi %s dengan token %s",
		"event.accept.temp":   "penyimpanan menerima %s dari %s dengan token %s: nama sementara yang tidak dibaca siapa pun",
		"event.accept.rename": "penyimpanan menjalankan rename %s menjadi %s untuk %s dengan token %s (tertinggi: %d)",
		"event.reject.rename": "penyimpanan menolak rename %s menjadi %s untuk %s dengan token %s (%s)",
		"violation.mixed":     "PELANGGARAN: isi yang ditulis %s (token %s) tercampur dengan bagian tulisan lain: file ini bukan hasil siapa pun",
		"mode.rename":         "rename bersyarat",
		"harm.mixed":          "file tercampur dari bagian dua tulisan",
		"explain.leader.none": "leader koordinator belum berganti: matikan replika yang sedang menjadi leader",
		"event.log-index":     " (entri log ke-%d)",
		"event.lease-id":      " (ID lease buatan replika %d)",
		"reason.lease-id":     "ID lease",
		// A session revoked: the coordinator refuses its holder as not
		// authorised, and the holder's policy takes that as definitive
		// or (unsafe) as transient.
		"cmd.revoke":                      "cabut sesi %s",
		"ctl.revoke":                      "Cabut sesi",
		"err.revoked":                     "cabut sesi: sesi %s sudah dicabut",
		"reason.revoked":                  "sesinya dicabut",
		"reason.unauthorized":             "tidak berwenang",
		"event.expire.revoked":            "operator mencabut sesi %s: lease-nya (token %s) berakhir saat itu juga di koordinator",
		"event.renew-reject.unauthorized": "koordinator menolak perpanjangan dari %s (token %s): ia tidak berwenang lagi, karena sesinya sudah dicabut",
		"policy.auth.definitive":          "Tidak berwenang: berhenti seketika",
		"policy.auth.transient":           "Tidak berwenang: coba lagi",
		// A stale write or a late act after a lease that ended by its
		// holder's revoked session or by a forgotten lock, not by its
		// expiry (engine.Event.Cause).
		"violation.stale-write.revoked":          "PELANGGARAN: penyimpanan menerima tulisan %s dengan token %s padahal sesinya sudah dicabut dan lease-nya sudah berakhir",
		"violation.acted-after-expiry.revoked":   "PERINGATAN: %s bertindak dengan token %s setelah sesinya dicabut dan lease-nya berakhir di koordinator",
		"violation.stale-write.forgotten":        "PELANGGARAN: penyimpanan menerima tulisan %s dengan token %s padahal lock-nya sudah tidak punya mayoritas",
		"violation.acted-after-expiry.forgotten": "PERINGATAN: %s bertindak dengan token %s setelah lock-nya tidak lagi punya mayoritas",
	})
	_ = register("en", map[string]string{
		"event.part":                             "part %d of %s",
		"event.part.of":                          "part %d of %d of %s",
		"event.write.rename":                     "%s asks to rename %s to %s with token %s",
		"event.accept.temp":                      "the storage accepts %s from %s with token %s: a temporary name nobody reads",
		"event.accept.rename":                    "the storage renames %s to %s for %s with token %s (highest: %d)",
		"event.reject.rename":                    "the storage refuses to rename %s to %s for %s with token %s (%s)",
		"violation.mixed":                        "VIOLATION: what %s wrote (token %s) is mixed with parts of another write: the file is nobody's result",
		"mode.rename":                            "conditional rename",
		"harm.mixed":                             "a file mixed from the parts of two writes",
		"explain.leader.none":                    "the coordinator's leader has not changed yet: take down the replica that leads it",
		"event.log-index":                        " (log entry %d)",
		"event.lease-id":                         " (a lease ID made by replica %d)",
		"reason.lease-id":                        "lease ID",
		"cmd.revoke":                             "revoke %s's session",
		"ctl.revoke":                             "Revoke session",
		"err.revoked":                            "revoke: %s's session is revoked already",
		"reason.revoked":                         "session revoked",
		"reason.unauthorized":                    "not authorised",
		"event.expire.revoked":                   "an operator revokes %s's session: its lease (token %s) ends at once at the coordinator",
		"event.renew-reject.unauthorized":        "the coordinator refuses %s's renewal (token %s): it is no longer authorised, its session revoked",
		"policy.auth.definitive":                 "Not authorised: stop at once",
		"policy.auth.transient":                  "Not authorised: retry",
		"violation.stale-write.revoked":          "VIOLATION: the storage accepted %s's write with token %s although its session had been revoked and its lease had ended",
		"violation.acted-after-expiry.revoked":   "WARNING: %s acted with token %s after its session was revoked and its lease ended at the coordinator",
		"violation.stale-write.forgotten":        "VIOLATION: the storage accepted %s's write with token %s although its lock no longer had a majority",
		"violation.acted-after-expiry.forgotten": "WARNING: %s acted with token %s after its lock no longer had a majority",
	})

	// How the catalog says a revocation (engine.CmdRevoke): the command
	// table's row lives with the texts it says.
	_ = sayCommandAs(engine.CmdRevoke, sayWorker("cmd.revoke"))

	// The problems `leaselab check` reports with a write step, by the
	// English format (check.go).
	_ = registerMessages("id", map[string]string{
		"write takes one key and optionally value=V, parts=N, each=D and commit=rename, such as write thumb value=v1": "«write» menerima satu kunci dan, bila perlu, «value=V», «parts=N», «each=D», dan «commit=rename», misalnya «write thumb value=v1»",
		"write value=V takes a word of at most 32 characters, not %q":                                                 "«write value=V» menerima satu kata, paling banyak 32 karakter, bukan %q",
		"write parts=N takes 2 to %d parts, not %q":                                                                   "«write parts=N» menerima 2 sampai %d bagian, bukan %q",
		"write each=D takes a duration above 0, such as each=2s, not %q":                                              "«write each=D» menerima lama waktu lebih dari 0, misalnya «each=2s», bukan %q",
		"write commit= takes rename (write to a temporary name, then rename it onto the key), not %q":                 "«write commit=» hanya menerima «rename» (tulis ke nama sementara, lalu rename ke kuncinya), bukan %q",
		"after %s's expected \"write\", \"send\", \"rename\", \"temporary write\", \"check\", \"token is its grant's log index\", \"lease expires\", \"renewal fails\" or \"renewal is rolled back\", got GOT":                                                                                                                         "setelah %s's seharusnya \"write\", \"send\", \"rename\", \"temporary write\", \"check\", \"token is its grant's log index\", \"lease expires\", \"renewal fails\" atau \"renewal is rolled back\", tertulis GOT",
		"after %s expected \"'s\", \"writes\", \"sends\", \"acts\", \"acquires the lease\", \"gets token N\", \"gets a higher token than W\", \"loses the lease\", \"renews the lease\", \"becomes uncertain\", \"gives up\", \"refuses work\", \"drops a stale reply\", \"is denied the lease\", \"freezes\" or \"crashes\", got GOT": "setelah %s seharusnya \"'s\", \"writes\", \"sends\", \"acts\", \"acquires the lease\", \"gets token N\", \"gets a higher token than W\", \"loses the lease\", \"renews the lease\", \"becomes uncertain\", \"gives up\", \"refuses work\", \"drops a stale reply\", \"is denied the lease\", \"freezes\" atau \"crashes\", tertulis GOT",
		"loops=1, loops=2, generation=check, generation=ignore, publish-gap=D, renew=D, cancel=on|off or auth=definitive|transient":                                                                                                                                                                                                    "«loops=1», «loops=2», «generation=check», «generation=ignore», «publish-gap=D», «renew=D», «cancel=on|off» atau «auth=definitive|transient»",
		"want counter, log or lease-id":         "pilih «counter», «log», atau «lease-id»",
		"tokens: want counter, log or lease-id": "«tokens»: pilih «counter», «log», atau «lease-id»",
		"tokens: Redlock's independent masters keep no shared log and no leader: only tokens=counter": "«tokens»: master-master Redlock yang berdiri sendiri tidak punya log bersama dan tidak punya leader: hanya «tokens=counter»",
		"write takes value=V, parts=N, each=D and commit=rename after its key, not %q":                "setelah kuncinya, «write» menerima «value=V», «parts=N», «each=D», dan «commit=rename», bukan %q",
	})
)

// sayCommandAs adds how the catalog says one kind of command, from a file
// of texts other than command.go.
func sayCommandAs(k engine.CommandKind, say sayCommand) bool {
	commandWords[k] = say
	return true
}
