// Package static holds the site's CSS and scripts. They are embedded in the
// binary, so the server needs no files on disk, no CDN and no build step.
package static

import "embed"

// FS holds every asset, at the top level.
//
//go:embed *.css *.js *.png
var FS embed.FS
