package web

import (
	"context"
	"io"
	"slices"
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
	// Live draws the run on a time scale that holds still while it plays
	// (liveChartSpan), so that a frame only adds its new dots.
	Live bool
}

type chartPanel struct {
	Label          string
	X0, X1, Y0, Y1 int // plot area
	Dots           []chartDot
	YTicks         []chartTick
	XTicks         []chartTick
	Summary        string // min and median left, in words
	span, ymax     engine.Time
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
	c := &Chart{ID: id, Lang: lang, Title: T(lang, "chart.title"), Width: chartPanelW * max(1, len(runs)), Height: chartH}
	ymax := chartYMax(runs)
	for i, r := range runs {
		span := max(r.World.Now(), engine.Second)
		if r.Live {
			span = liveChartSpan(r.World.Now())
		}
		p := newChartPanel(i, span, ymax)
		p.Label = r.Label
		var left []engine.Time
		for _, e := range r.World.Events() {
			if e.Kind != engine.KindRenewed {
				continue
			}
			left = append(left, engine.Time(e.Value))
			p.Dots = append(p.Dots, p.dot(e))
		}
		slices.Sort(left)
		p.Summary = chartSummary(lang, left)
		c.Panels = append(c.Panels, p)
	}
	return c
}

// The chart's geometry: one panel per run.
const chartPanelW, chartH, chartLeft, chartRight, chartTop, chartBottom = 460, 260, 56, 16, 34, 40

// newChartPanel is panel i's frame and ticks, for span of time and a
// vertical scale up to ymax.
func newChartPanel(i int, span, ymax engine.Time) chartPanel {
	p := chartPanel{X0: i*chartPanelW + chartLeft, X1: (i+1)*chartPanelW - chartRight, Y0: chartTop, Y1: chartH - chartBottom, span: span, ymax: ymax}
	for _, v := range []engine.Time{0, ymax / 2, ymax} {
		p.YTicks = append(p.YTicks, chartTick{X: p.X0 - 6, Y: p.y(v), Label: v.String()})
	}
	step := tickStep(span)
	for t := engine.Time(0); t <= span; t += step {
		p.XTicks = append(p.XTicks, chartTick{X: p.x(t), Y: p.Y1 + 18, Label: t.String()})
	}
	return p
}

func (p *chartPanel) x(t engine.Time) int { return p.X0 + int(int64(t)*int64(p.X1-p.X0)/int64(p.span)) }

func (p *chartPanel) y(v engine.Time) int {
	v = min(max(v, 0), p.ymax)
	return p.Y1 - int(int64(v)*int64(p.Y1-p.Y0)/int64(p.ymax))
}

// dot is a renewal's dot: when it happened, and the lease time it left.
func (p *chartPanel) dot(e engine.Event) chartDot {
	return chartDot{X: p.x(e.T), Y: p.y(engine.Time(e.Value)), Class: workerColour[int(e.Node)%6]}
}

var workerColour = [6]string{"w0", "w1", "w2", "w3", "w4", "w5"}

// chartSummary says the least and the median time left, of the sorted
// left, and how many renewals there were.
func chartSummary(lang string, left []engine.Time) string {
	if len(left) == 0 {
		return T(lang, "chart.none")
	}
	pct := func(p int) engine.Time {
		i := (len(left)*p + 99) / 100
		return left[min(max(i-1, 0), len(left)-1)]
	}
	return T(lang, "chart.min") + " " + pct(0).String() + " · " +
		T(lang, "chart.median") + " " + pct(50).String() + " · " +
		strconv.Itoa(len(left)) + " " + T(lang, "chart.renewals")
}

// chartYMax is the chart's vertical scale: the longest lease duration
// among the runs.
func chartYMax(runs []ChartRun) engine.Time {
	var ymax engine.Time
	for _, r := range runs {
		ymax = max(ymax, r.World.Scenario().TTL)
	}
	if ymax <= 0 {
		return 10 * engine.Second
	}
	return ymax
}

func liveChartSpan(now engine.Time) engine.Time {
	for _, s := range liveSpans {
		if s >= now {
			return s
		}
	}
	s := liveSpans[len(liveSpans)-1]
	for s < now {
		s *= 2
	}
	return s
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
