package main

// The skeletons "leaselab new" writes. Each passes "leaselab check" as it
// stands, so an author starts from something that works and changes one
// thing at a time. %s is the new id.

const lessonID = `---
title: Pelajaran baru (%s)
---
Tulis bacaan pelajaran ini di sini, dalam Markdown. Untuk menautkan sebuah
lab, pakai alamat lab: diikuti id lab itu; untuk pelajaran lain, lesson:
diikuti id-nya. leaselab check memeriksa setiap tautan semacam itu.
`

const lessonEN = `---
title: New lesson (%s)
---
Write this lesson's reading here, in Markdown. To link a lab, use the
address lab: followed by the lab's id; for another lesson, lesson:
followed by its id. leaselab check checks every such link.
`

// labYAML is a two-worker story: W1 is frozen past its lease's expiry,
// W2 takes over, and the one question asks what the fencing storage does
// with W1's late write.
const labYAML = `# yaml-language-server: $schema=../../lab.schema.json
# A new lab. W1 holds the lease (token 1) and is frozen past its expiry;
# W2 gets token 2 and writes; then W1 wakes and writes with token 1.
id: %s
scenario:
  ttl: 10s
  first-token: 1
  storage: fencing
  workers:
    W1: acquire; work 4s; write report; release
    W2 start=1s: acquire; work 4s; write report; release
horizon: 40s
# The buttons the live page offers; time controls are always there.
controls:
  freeze: [5s, 25s]
  crash:

questions:
  - id: late-write
    answer: rejected
    run:
      - until 2s
      - freeze W1 for=25s
      - until 30s
    choices:
      - id: rejected
        holds: W1's write with token 1 is rejected
      - id: accepted
        holds: W1's write with token 1 is accepted

goals:
  - id: stale-rejected
    holds: W1's write with token 1 is rejected
    proof:
      - until 2s
      - freeze W1 for=25s
      - until 30s
`

const labMDID = `---
title: Lab baru
---
Ceritakan di sini apa yang terjadi di dunia lab ini. W1 memegang lease
dengan token 1 lalu dibekukan melewati kedaluwarsanya; W2 mendapat token 2
dan menulis laporan. Penyimpanan memeriksa token fencing.

## Pertanyaan late-write

W1 bangun setelah W2 menulis, lalu mencoba menulis laporannya sendiri.
Apa yang dilakukan penyimpanan?

### Pilihan rejected
Penyimpanan menolak tulisan W1.

### Pilihan accepted
Penyimpanan menerima tulisan W1.

### Petunjuk
Bandingkan token yang dibawa W1 dengan token tertinggi yang sudah dilihat
penyimpanan.

### Pembahasan
Penyimpanan sudah menerima token 2, jadi token 1 milik W1 sudah usang:

{{evidence}}

## Tugas stale-rejected

Bekukan W1 cukup lama sampai lease-nya kedaluwarsa, lalu biarkan ia
menulis: penyimpanan harus menolaknya.
`

const labMDEN = `---
title: New lab
---
Tell here what happens in this lab's world. W1 holds the lease with
token 1 and is frozen past its expiry; W2 gets token 2 and writes the
report. The storage checks fencing tokens.

## Question late-write

W1 wakes up after W2 has written, and tries to write its own report.
What does the storage do?

### Choice rejected
The storage rejects W1's write.

### Choice accepted
The storage accepts W1's write.

### Hint
Compare W1's token with the highest token the storage has seen.

### Explanation
The storage has accepted token 2 already, so W1's token 1 is stale:

{{evidence}}

## Goal stale-rejected

Freeze W1 long enough for its lease to expire, then let it write: the
storage must reject it.
`

// The words of a new program lab: what the student writes and how it is
// judged, to be replaced by the lab's own story.
const programMDID = `---
title: Lab program baru
---
Di lab ini kamu menulis logika W1 dalam Starlark. Ceritakan di sini apa
yang harus dilakukan W1, handler apa saja yang dipanggil mesin, dan
bagaimana programnya dinilai: mesin memutar jadwal gangguan, dan W1 tidak
boleh bertindak tanpa lease.
`

const programMDEN = `---
title: New program lab
---
In this lab you write W1's logic in Starlark. Tell here what W1 must do,
which handlers the engine calls, and how the program is judged: the engine
plays fault schedules, and W1 must never act without its lease.
`

// programLabYAML is a program lab's skeleton (its id is ID until written):
// W1 takes a lease, writes while it believes the lease holds, and asks
// again when it runs out; the schedules pause it and slow its answers.
const programLabYAML = `# yaml-language-server: $schema=../../lab.schema.json
# A program lab: the student writes W1's logic in Starlark (start.star);
# reference.star is the solution leaselab check proves, never shown.
id: ID
scenario:
  ttl: 10s
  delay: 100ms
  storage: none
  workers:
    # W1's steps only name the key it writes; its program decides.
    W1: acquire; write data
horizon: 40s

program:
  worker: W1
  actions: [acquire, write, set_timer, stop]
  start: start.star
  reference: reference.star
  runs: 100
  seed: 1
  horizon: 40s
  faults:
    spike: 3s
    pause: 12s
`

// programStart is the skeleton's starting program: it counts the lease
// from when the answer arrived, and the engine breaks it.
const programStart = `# W1 takes a lease, writes "data" every second while it believes the
# lease holds, and asks for a new lease when it runs out. It counts the
# lease from when the answer arrived: run it, then Submit.

def on_start(w, ev):
    w.acquire()

def on_denied(w, ev):
    w.set_timer("work", w.now + SECOND)

def on_granted(w, ev):
    w.state["token"] = ev.token
    w.state["until"] = w.now + ev.ttl
    w.set_timer("work", w.now + SECOND)

def on_timer(w, ev):
    if w.now < w.state.get("until", 0):
        w.write("data", w.state["token"])
        w.set_timer("work", w.now + SECOND)
    else:
        w.acquire()
`

// programReference is the skeleton's solution, which check proves.
const programReference = `# The solution: count the lease from when the request left (an answer
# can come late), and write only while more than a margin is left.
MARGIN = SECOND // 2

def ask(w):
    w.state["sent"] = w.now
    w.acquire()

def on_start(w, ev):
    ask(w)

def on_denied(w, ev):
    w.set_timer("work", w.now + SECOND)

def on_granted(w, ev):
    w.state["token"] = ev.token
    w.state["until"] = w.state["sent"] + ev.ttl
    w.set_timer("work", w.now + SECOND)

def on_timer(w, ev):
    if w.now + MARGIN < w.state.get("until", 0):
        w.write("data", w.state["token"])
        w.set_timer("work", w.now + SECOND)
    else:
        ask(w)
`
