// Package content is the course: lessons and labs as files, embedded in
// the binary. The format is described in docs/authoring.md and read by
// package labs.
package content

import (
	"embed"
	"io/fs"
)

//go:embed course.yaml lessons labs
var files embed.FS

// FS is the course, rooted at course.yaml.
var FS fs.FS = files
