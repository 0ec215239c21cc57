package web

import (
	"container/list"
	"crypto/sha256"
	"net/http"
	"sync"

	"github.com/labstack/echo/v4"

	"leaselab/labs"
)

// lru keeps the results of deterministic work (a challenge verdict for a
// lab and a policy, a permalink page for a query) so that asking again
// costs nothing. It is bounded in entries and in bytes; the least recently
// used go first.
type lru[K comparable, V any] struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	size     func(V) int
	ll       *list.List // front: most recent
	m        map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key  K
	val  V
	size int
}

func newLRU[K comparable, V any](max, maxBytes int, size func(V) int) *lru[K, V] {
	return &lru[K, V]{max: max, maxBytes: maxBytes, size: size, ll: list.New(), m: map[K]*list.Element{}}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*lruEntry[K, V]).val, true
	}
	var zero V
	return zero, false
}

// put keeps v under k; a value larger than an eighth of the cache is not
// kept, so one huge page cannot empty it.
func (c *lru[K, V]) put(k K, v V) {
	n := c.size(v)
	if n > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		old := e.Value.(*lruEntry[K, V])
		c.bytes += n - old.size
		old.val, old.size = v, n
		c.ll.MoveToFront(e)
	} else {
		c.m[k] = c.ll.PushFront(&lruEntry[K, V]{key: k, val: v, size: n})
		c.bytes += n
	}
	for c.ll.Len() > c.max || c.bytes > c.maxBytes {
		e := c.ll.Back()
		ent := e.Value.(*lruEntry[K, V])
		c.ll.Remove(e)
		delete(c.m, ent.key)
		c.bytes -= ent.size
	}
}

// digest names a long string (a query) in a cache key by its hash.
func digest(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }

// pageKey names a page that depends only on its URL and the course.
type pageKey struct {
	course *loaded // a reload makes a new one: old pages age out
	author bool    // the author sees the content's problems
	site   string  // scheme and host: a page's share field holds its absolute URL
	path   string
	query  [sha256.Size]byte
}

// siteURL is this site as the request reached it, scheme and host (the
// host the checkHost middleware let through): the start of an absolute
// link to one of its pages.
func (s *Server) siteURL(c echo.Context) string { return c.Scheme() + "://" + c.Request().Host }

// cachedPage answers with the page the request's URL names: from the
// cache, or made by build and kept. lab is the lab the page shows. Only a
// whole, successful page is kept, and only when the course did not change
// while the page was made: a page of the old course must not be kept
// under the new one.
func (s *Server) cachedPage(c echo.Context, lab *labs.Lab, contentType string, build func() ([]byte, error)) error {
	r := c.Request()
	cur := s.course.get()
	key := pageKey{cur, isAuthor(r.Context()), s.siteURL(c), r.URL.Path, digest(r.URL.RawQuery)}
	if body, ok := s.pages.get(key); ok {
		return c.Blob(http.StatusOK, contentType, body)
	}
	body, err := build()
	if err != nil {
		return err
	}
	if cur.course != nil && cur.course.Lab(lab.ID) == lab && s.course.get() == cur {
		s.pages.put(key, body)
	}
	return c.Blob(http.StatusOK, contentType, body)
}
