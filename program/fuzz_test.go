package program

import (
	"testing"
)

// FuzzProgram feeds programs — hostile ones among the seeds: endless
// loops, deep nesting, huge strings and lists, every builtin — to the
// compiler and, when they compile, to a world. Nothing may panic, and a
// run stays within the world's budget: a program cannot keep the world
// busy beyond its limits.
func FuzzProgram(f *testing.F) {
	for _, s := range []string{
		naive,
		"def on_start(w, ev):\n    for i in range(4096):\n        for j in range(4096):\n            pass\n",
		"def on_start(w, ev):\n    x = " + deep(200) + "\n",
		"def on_start(w, ev):\n    s = 'x'\n    for i in range(64):\n        s = s + s\n",
		"def on_start(w, ev):\n    l = [0]\n    for i in range(64):\n        l = l * 2\n",
		"def on_start(w, ev):\n    d = {}\n    for i in range(4096):\n        d[i] = str(i) * 4\n    w.state['d'] = d\n",
		"def on_start(w, ev):\n    print(dir(w), dir(ev), type(w), hash('x'), repr(w), sorted([3, 1]), enumerate([1]), zip([1], [2]), reversed([1]), any([1]), all([1]), getattr(w, 'now'), hasattr(w, 'x'), len('x'), list('ab'.elems()), min(1, 2), max(1, 2), abs(-1), bool(1), float(1), int('1'), str(1), tuple([1]), dict(a=1), fail)\n",
		"def on_start(w, ev):\n    fail('no')\n",
		"def on_start(w, ev):\n    w.set_timer('a', w.now + 1)\n    w.set_timer('b', 0)\n    w.set_timer('c', 1)\n    w.set_timer('d', 1)\n    w.set_timer('e', 1)\n",
		"def on_start(w, ev):\n    w.acquire()\ndef on_granted(w, ev):\n    w.write('lock', ev.token)\n",
		"def on_start(w, ev):\n    w.acquire()\ndef on_granted(w, ev):\n    w.set_timer('t', w.now)\ndef on_timer(w, ev):\n    w.set_timer('t', w.now)\n    w.write('data', 0)\n",
		"def on_start(w, ev):\n    w.renew(1, tag=-1)\n",
		"def on_start(w, ev):\n    w.state['x'] = w.state\n",
		"def on_start(w, ev):\n    x = 1 << 62\n    x = x * x * x\n",
		"def on_start(w, ev):\n    l = [\"x\"*4096]*4096\n    s = str([l]*4096)\n",
		"def on_start(w, ev):\n    l = [[1]*64]*64\n    s = (l == [l]) or (l in [l, l]) or sorted([l, l]) or {tuple([1]*64): l}\n",
		"def f(*a, **k):\n    return a\ndef on_start(w, ev):\n    l = list(range(4096))\n    x = f(*l, **{'a': l})[1:][::-1] + l[:2]\n    y = '%s %r' % (x, l)\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Compile(src, nil, DefaultLimits)
		if err != nil {
			if Describe(err, "id") == "" {
				t.Fatal("an error without words")
			}
			return
		}
		w := programWorld(t, c, 3)
		// A refusal (the world's event budget) is fine; a panic is not.
		_ = w.Do("until 30s")
		if len(w.Events()) > 200_000 {
			t.Fatalf("%d events", len(w.Events()))
		}
		for _, fl := range w.ProgramFaults() {
			if Describe(fl.Err, "en") == "" {
				t.Fatal("a fault without words")
			}
		}
	})
}

func deep(n int) string {
	s := "1"
	for range n {
		s = "[" + s + "]"
	}
	return s
}
