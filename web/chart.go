package web

import (
	"context"
	"io"
	"strconv"

	"leaselab/engine"
)

// Chart plots, for one or more runs side by side, how much lease time was
// left at each successful renewal. A distribution that sinks while nothing
// fails is congestion showing before leases start to expire (seed 2).
type Chart struct {
	ID            string
	Lang          string
	Title         string
	Width, Height int
	Panels        []chartPanel
}

// ChartRun is one run to plot: a label ("without jitter") and its world.
type ChartRun struct {
	Label string
	World *engine.World
}

type chartPanel struct {
	Label          string
	X0, X1, Y0, Y1 int // plot area
	Dots           []chartDot
	YTicks         []chartTick
	XTicks         []chartTick
	Summary        string // min and median left, in words
}

type chartDot struct {
	X, Y  int
	Class string
}

type chartTick struct {
	X, Y  int
	Label string
}

// NewChart lays out the remaining-time chart of runs. The vertical scale is
// the largest lease duration among the runs.
func NewChart(id, lang string, runs []ChartRun) *Chart {
	const panelW, h, left, right, top, bottom = 460, 260, 56, 16, 34, 40
	c := &Chart{ID: id, Lang: lang, Title: T(lang, "chart.title"), Width: panelW * max(1, len(runs)), Height: h}
	var ymax engine.Time
	for _, r := range runs {
		ymax = max(ymax, r.World.Scenario().TTL)
	}
	if ymax <= 0 {
		ymax = 10 * engine.Second
	}
	for i, r := range runs {
		p := chartPanel{Label: r.Label, X0: i*panelW + left, X1: (i+1)*panelW - right, Y0: top, Y1: h - bottom}
		span := max(r.World.Now(), engine.Second)
		x := func(t engine.Time) int { return p.X0 + int(int64(t)*int64(p.X1-p.X0)/int64(span)) }
		y := func(v engine.Time) int {
			v = min(max(v, 0), ymax)
			return p.Y1 - int(int64(v)*int64(p.Y1-p.Y0)/int64(ymax))
		}
		var left []engine.Time
		for _, e := range r.World.Events() {
			if e.Kind != engine.KindRenewed {
				continue
			}
			v := engine.Time(e.Value)
			left = append(left, v)
			p.Dots = append(p.Dots, chartDot{X: x(e.T), Y: y(v), Class: "w" + strconv.Itoa(int(e.Node)%6)})
		}
		for _, v := range []engine.Time{0, ymax / 2, ymax} {
			p.YTicks = append(p.YTicks, chartTick{X: p.X0 - 6, Y: y(v), Label: v.String()})
		}
		step := tickStep(span)
		for t := engine.Time(0); t <= span; t += step {
			p.XTicks = append(p.XTicks, chartTick{X: x(t), Y: p.Y1 + 18, Label: t.String()})
		}
		if len(left) > 0 {
			p.Summary = T(lang, "chart.min") + " " + engine.Percentile(left, 0).String() + " · " +
				T(lang, "chart.median") + " " + engine.Percentile(left, 50).String() + " · " +
				strconv.Itoa(len(left)) + " " + T(lang, "chart.renewals")
		} else {
			p.Summary = T(lang, "chart.none")
		}
		c.Panels = append(c.Panels, p)
	}
	return c
}

func hasRenewals(w *engine.World) bool {
	for _, e := range w.Events() {
		if e.Kind == engine.KindRenewed {
			return true
		}
	}
	return false
}

// RenderChartSVG writes the chart as a standalone SVG document.
func RenderChartSVG(w io.Writer, id, lang string, runs []ChartRun) error {
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return RemainingChart(NewChart(id, lang, runs)).Render(context.Background(), w)
}
