// Package draw writes what a lab page and a live frame show: the
// space-time diagram, the status, signals and event panels, the renewal
// chart and the what-if pair's picture, as markup, and the difference
// between one frame's picture and the next.
package draw
