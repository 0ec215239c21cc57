package labs

import (
	"fmt"
	"strconv"

	"leaselab/engine"
)

// DescribeEvent is one event as a sentence in lang ("id" or "en"; any
// other language gets Indonesian), without its time.
func DescribeEvent(e engine.Event, names engine.Names, lang string) string {
	en := lang == "en"
	pick := func(id, eng string) string {
		if en {
			return eng
		}
		return id
	}
	n, p := names.Of(e.Node), names.Of(e.Peer)
	tok := strconv.FormatInt(e.Token, 10)
	reason := reasonText(e.Reason, en)
	switch e.Kind {
	case engine.KindSend:
		return fmt.Sprintf(pick("%s mengirim pesan %s ke %s", "%s sends %s to %s"), n, e.Msg, p)
	case engine.KindRecv:
		return fmt.Sprintf(pick("%s menerima pesan %s dari %s", "%s receives %s from %s"), n, e.Msg, p)
	case engine.KindDrop:
		return fmt.Sprintf(pick("pesan %s dari %s ke %s hilang (%s)", "message %s from %s to %s is lost (%s)"), e.Msg, n, p, reason)
	case engine.KindGrant:
		if e.At == engine.Never {
			return fmt.Sprintf(pick("koordinator memberi %s lock dengan token %s, tanpa kedaluwarsa", "the coordinator grants %s the lock with token %s, with no expiry"), p, tok)
		}
		return fmt.Sprintf(pick("koordinator memberi %s lease dengan token %s sampai %s", "the coordinator grants %s the lease with token %s until %s"), p, tok, e.At)
	case engine.KindQueue:
		return fmt.Sprintf(pick("%s menunggu giliran untuk lease", "%s waits in line for the lease"), p)
	case engine.KindDeny:
		return fmt.Sprintf(pick("koordinator menolak memberi lease ke %s (%s)", "the coordinator denies %s the lease (%s)"), p, reason)
	case engine.KindExtend:
		if e.Reason == engine.ReasonRefresh {
			return fmt.Sprintf(pick("leader koordinator yang baru memberi lease %s (token %s) TTL penuh lagi, sampai %s", "the coordinator's new leader gives %s's lease (token %s) its full TTL again, until %s"), p, tok, e.At)
		}
		return fmt.Sprintf(pick("koordinator memperpanjang lease %s (token %s) sampai %s", "the coordinator extends %s's lease (token %s) until %s"), p, tok, e.At)
	case engine.KindRenewReject:
		return fmt.Sprintf(pick("koordinator menolak perpanjangan dari %s: ia bukan pemegang token %s", "the coordinator refuses %s's renewal: it does not hold token %s"), p, tok)
	case engine.KindUnavailable:
		return fmt.Sprintf(pick("koordinator tidak bisa melayani %s (%s)", "the coordinator cannot serve %s (%s)"), p, reason)
	case engine.KindExpire:
		if e.Reason == engine.ReasonTakeover {
			return fmt.Sprintf(pick("catatan lease %s (token %s) ditimpa kandidat yang, menurut jamnya sendiri, melihatnya tak berubah selama satu TTL", "%s's lease record (token %s) is overwritten by a candidate that, by its own clock, saw it unchanged for a TTL"), p, tok)
		}
		return fmt.Sprintf(pick("lease %s dengan token %s habis di koordinator", "%s's lease with token %s expires at the coordinator"), p, tok)
	case engine.KindRelease:
		return fmt.Sprintf(pick("%s melepas lease dengan token %s", "%s releases the lease with token %s"), p, tok)
	case engine.KindElection:
		return fmt.Sprintf(pick("pemilihan leader koordinator dimulai, selesai pada %s", "a coordinator leader election starts, done at %s"), e.At)
	case engine.KindLeader:
		return fmt.Sprintf(pick("replika %d menjadi leader koordinator", "replica %d becomes the coordinator's leader"), e.Value)
	case engine.KindReplica:
		if e.Reason == engine.ReasonUp {
			return fmt.Sprintf(pick("replika %d hidup lagi", "replica %d is back up"), e.Value)
		}
		return fmt.Sprintf(pick("replika %d mati", "replica %d goes down"), e.Value)
	case engine.KindStart:
		return fmt.Sprintf(pick("%s mulai menjalankan programnya", "%s starts its program"), n)
	case engine.KindAcquired:
		return fmt.Sprintf(pick("%s tahu ia memegang lease dengan token %s dan mengira berlaku sampai %s (jamnya sendiri)", "%s learns it holds the lease with token %s and believes it lasts until %s (its own clock)"), n, tok, e.At)
	case engine.KindRenewed:
		return fmt.Sprintf(pick("%s kini mengira lease-nya (token %s) berlaku sampai %s", "%s now believes its lease (token %s) lasts until %s"), n, tok, e.At)
	case engine.KindLost:
		return fmt.Sprintf(pick("%s berhenti memegang lease dengan token %s (%s)", "%s stops holding the lease with token %s (%s)"), n, tok, reason)
	case engine.KindWork:
		return fmt.Sprintf(pick("%s bekerja selama %s", "%s works for %s"), n, engine.Time(e.Value))
	case engine.KindCheck:
		if e.Reason == engine.ReasonOK {
			return fmt.Sprintf(pick("%s memeriksa lease-nya: masih berlaku menurutnya (sampai %s)", "%s checks its lease: still valid as far as it knows (until %s)"), n, e.At)
		}
		return fmt.Sprintf(pick("%s memeriksa lease-nya: sudah habis (sampai %s)", "%s checks its lease: it has run out (until %s)"), n, e.At)
	case engine.KindWrite:
		verb := pick("menulis", "writes")
		if e.Effect {
			verb = pick("mengirim", "sends")
		}
		if e.Token == 0 {
			return fmt.Sprintf(pick("%s %s %s tanpa token", "%s %s %s without a token"), n, verb, e.Key)
		}
		return fmt.Sprintf(pick("%s %s %s dengan token %s", "%s %s %s with token %s"), n, verb, e.Key, tok)
	case engine.KindTimeout:
		return fmt.Sprintf(pick("permintaan %s dari %s tidak dijawab", "%s's %s request goes unanswered"), e.Msg, n)
	case engine.KindDone:
		return fmt.Sprintf(pick("%s selesai", "%s is done"), n)
	case engine.KindAccept:
		if e.Reason == engine.ReasonSameValue {
			return fmt.Sprintf(pick("penyimpanan menerima %s dari %s dengan token %s: isinya sama dengan yang sudah ada, jadi tidak ada yang rusak", "the storage accepts %s from %s with token %s: the same content as already there, so nothing is harmed"), e.Key, p, tok)
		}
		return fmt.Sprintf(pick("penyimpanan menerima %s dari %s dengan token %s (tertinggi: %d)", "the storage accepts %s from %s with token %s (highest: %d)"), e.Key, p, tok, e.Value)
	case engine.KindReject:
		why := reason
		switch e.Reason {
		case engine.ReasonStaleToken:
			why = fmt.Sprintf(pick("token usang: %s < %d", "stale token: %s < %d"), tok, e.Value)
		case engine.ReasonNotCurrent:
			why = fmt.Sprintf(pick("bukan token lease saat ini, %d", "not the current lease's token, %d"), e.Value)
		case engine.ReasonVersion:
			why = fmt.Sprintf(pick("versi sudah %d", "version is now %d"), e.Value)
		}
		return fmt.Sprintf(pick("penyimpanan menolak %s dari %s dengan token %s (%s)", "the storage rejects %s from %s with token %s (%s)"), e.Key, p, tok, why)
	case engine.KindRead:
		return fmt.Sprintf(pick("%s membaca versi %d", "%s reads version %d"), p, e.Value)
	case engine.KindFreeze:
		if e.At != 0 {
			return fmt.Sprintf(pick("%s dibekukan sampai %s", "%s is frozen until %s"), n, e.At)
		}
		return fmt.Sprintf(pick("%s dibekukan", "%s is frozen"), n)
	case engine.KindThaw:
		return fmt.Sprintf(pick("%s bangun dan melanjutkan tepat dari tempat ia berhenti", "%s wakes and carries on exactly where it stopped"), n)
	case engine.KindCrash:
		return fmt.Sprintf(pick("%s crash dan kehilangan ingatannya", "%s crashes and loses its memory"), n)
	case engine.KindRestart:
		return fmt.Sprintf(pick("%s mulai lagi dari awal", "%s restarts from the beginning"), n)
	case engine.KindFencing:
		return fmt.Sprintf(pick("mode penyimpanan menjadi %s", "the storage mode becomes %s"), engine.StorageMode(e.Value))
	case engine.KindPartition:
		if e.Peer == engine.NoNode {
			return fmt.Sprintf(pick("%s terputus dari semua", "%s is cut off from everyone"), n)
		}
		return fmt.Sprintf(pick("jaringan %s—%s terputus", "the link %s—%s is cut"), n, p)
	case engine.KindHeal:
		if e.Peer == engine.NoNode {
			return pick("jaringan pulih", "the network heals")
		}
		return fmt.Sprintf(pick("jaringan %s—%s pulih", "the link %s—%s heals"), n, p)
	case engine.KindLink:
		return fmt.Sprintf(pick("jalur %s→%s: delay %s, hilang %s", "link %s→%s: delay %s, loss %s"), n, p, e.At, strconv.FormatFloat(float64(e.Value)/1e6, 'f', -1, 64))
	case engine.KindClock:
		return fmt.Sprintf(pick("jam %s kini menunjukkan %s", "%s's clock now reads %s"), n, e.At)
	case engine.KindReset:
		return pick("dunia dimulai lagi", "the world starts again")
	case engine.KindViolation:
		return violationText(e, p, tok, en)
	}
	switch e.Kind {
	case engine.KindRenewError:
		if e.Value == 1 {
			return fmt.Sprintf(pick("perpanjangan %s gagal secara pasti (%s)", "%s's renewal failed for good (%s)"), n, reason)
		}
		return fmt.Sprintf(pick("perpanjangan %s gagal sementara (%s)", "%s's renewal failed for now (%s)"), n, reason)
	case engine.KindUncertain:
		if e.Reason == engine.ReasonJeopardy {
			return fmt.Sprintf(pick("lease lokal %s habis: sesinya dalam jeopardy, ia tidak memercayai lock-nya dan terus mencoba sampai %s", "%s's local lease has run out: its session is in jeopardy; it stops trusting its lock and keeps trying until %s"), n, e.At)
		}
		return fmt.Sprintf(pick("%s tidak yakin masih memegang lease: tersisa %s sampai batas %s", "%s is unsure it still holds the lease: %s left before its deadline %s"), n, engine.Time(e.Value), e.At)
	case engine.KindGiveUp:
		return fmt.Sprintf(pick("%s berhenti mencoba memperpanjang (%s), batasnya %s", "%s stops trying to renew (%s); its deadline is %s"), n, reason, e.At)
	case engine.KindStaleReply:
		return fmt.Sprintf(pick("%s membuang jawaban usang dari generasi lama (kini generasi %d)", "%s drops a stale answer from an older generation (now generation %d)"), n, e.Value)
	case engine.KindPublish:
		return fmt.Sprintf(pick("%s mulai memakai token %s", "%s starts using token %s"), n, tok)
	case engine.KindRefuse:
		return fmt.Sprintf(pick("%s menolak mulai bekerja: tersisa %s, butuh %s", "%s refuses to start work: %s left, %s needed"), n, engine.Time(e.Value), e.At)
	}
	return names.Describe(e)
}

// violationTexts is built once: violations are described on every frame.
var violationTexts = map[engine.Reason]reasonPair{
	engine.ViolationStaleWrite:       {"PELANGGARAN: penyimpanan menerima tulisan %s dengan token %s padahal lease-nya sudah habis", "VIOLATION: the storage accepted %s's write with token %s although its lease was gone"},
	engine.ViolationDoubleEffect:     {"PELANGGARAN: efek yang sama terjadi dua kali (%s, token %s)", "VIOLATION: the same effect happened twice (%s, token %s)"},
	engine.ViolationActedAfterExpiry: {"PELANGGARAN: %s bertindak dengan token %s setelah lease-nya habis di koordinator", "VIOLATION: %s acted with token %s after its lease expired at the coordinator"},
	engine.ViolationSplitBrain:       {"PELANGGARAN: split brain, %s (token %s) dan worker lain sama-sama mengira memegang lease", "VIOLATION: split brain, %s (token %s) and another worker both believe they hold the lease"},
	engine.ViolationLostUpdate:       {"PELANGGARAN: tulisan %s dengan token %s yang lebih lama menimpa tulisan yang lebih baru", "VIOLATION: %s's write with the older token %s overwrote a newer one"},
}

func violationText(e engine.Event, p, tok string, en bool) string {
	t, ok := violationTexts[e.Reason]
	if !ok {
		if en {
			return "VIOLATION: " + e.Reason.String()
		}
		return "PELANGGARAN: " + e.Reason.String()
	}
	if en {
		return fmt.Sprintf(t.en, p, tok)
	}
	return fmt.Sprintf(t.id, p, tok)
}

type reasonPair struct{ id, en string }

// reasonTexts is built once: reasonText runs for every mark of every frame.
var reasonTexts = map[engine.Reason]reasonPair{
	engine.ReasonStaleToken: {"token usang", "stale token"},
	engine.ReasonNoToken:    {"tanpa token", "no token"},
	engine.ReasonNotCurrent: {"bukan token saat ini", "not the current token"},
	engine.ReasonVersion:    {"versi berbeda", "version mismatch"},
	engine.ReasonDuplicate:  {"kunci sudah dipakai", "key already used"},
	engine.ReasonRejected:   {"tulisannya ditolak penyimpanan", "the storage rejected its write"},
	engine.ReasonNotHolder:  {"bukan pemegang lease", "not the holder"},
	engine.ReasonDeadline:   {"batas waktu menurut jamnya habis", "its own deadline ran out"},
	engine.ReasonExpired:    {"pemeriksaan menemukan lease habis", "a check found the lease expired"},
	engine.ReasonHeld:       {"dipegang worker lain", "held by another worker"},
	engine.ReasonLockDelay:  {"masih dalam lock-delay", "in its lock-delay"},
	engine.ReasonCrash:      {"crash", "crashed"},
	engine.ReasonPartition:  {"jaringan terputus", "partition"},
	engine.ReasonLoss:       {"paket hilang", "message loss"},
	engine.ReasonDown:       {"penerima mati", "receiver down"},
	engine.ReasonOK:         {"ok", "ok"},
	engine.ReasonUp:         {"hidup", "up"},
	engine.ReasonNoQuorum:   {"tanpa quorum", "no quorum"},
	engine.ReasonNoLeader:   {"tanpa leader", "no leader"},
	engine.ReasonTimeout:    {"habis waktu", "timeout"},
	engine.ReasonStaleGen:   {"generasi usang", "stale generation"},
	engine.ReasonNoTime:     {"tak ada waktu untuk mencoba lagi", "no time left to try"},
	engine.ReasonTries:      {"percobaan habis", "out of tries"},
	engine.ReasonTakeover:   {"diambil alih kandidat", "taken over by a candidate"},
	engine.ReasonRefresh:    {"diberi TTL baru oleh leader baru", "refreshed by a new leader"},
	engine.ReasonJeopardy:   {"jeopardy", "jeopardy"},
}

func reasonText(r engine.Reason, en bool) string {
	if t, ok := reasonTexts[r]; ok {
		if en {
			return t.en
		}
		return t.id
	}
	return r.String()
}
