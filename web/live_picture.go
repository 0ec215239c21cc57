package web

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"leaselab/engine"
)

// picture is a live session's diagram and renewal chart. The diagram
// shows the last liveWindow of a long run (a permalink draws it all). A
// playing session keeps its marks' sentences from one frame to the next;
// a paused one keeps nothing beyond its world.
func (l *live) picture(w *engine.World) templ.Component {
	if !l.playing {
		l.sentences = nil
	} else if l.sentences == nil {
		l.sentences = &sentenceCache{}
	}
	d := windowDiagram("live", w, l.lang, l.sentences)
	return templ.ComponentFunc(func(ctx context.Context, out io.Writer) error {
		if err := diagramFigure(d).Render(ctx, out); err != nil {
			return err
		}
		return renewalChart("live", w, l.lang).Render(ctx, out)
	})
}
