// Package content is the course: lessons and labs as files, embedded in
// the binary. The format is described in docs/authoring.md and read by
// package labs.
package content

import (
	"embed"
	"io/fs"
)

//go:embed course.yaml course.schema.json lab.schema.json lessons labs
var files embed.FS

// FS is the course, rooted at course.yaml, with the JSON Schemas of
// course.yaml and lab.yaml beside it (for editors; see leaselab schema).
var FS fs.FS = files
