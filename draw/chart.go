package draw

import (
	"context"
	"io"
	"math"
	"slices"
	"strconv"

	"leaselab/catalog"
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

// chartPanel is one run's panel: its place, its scales, and the run's
// renewals, which the writer draws as dots straight from the log.
type chartPanel struct {
	Label          string
	X0, X1, Y0, Y1 int // plot area
	span, ymax     engine.Time
	events         []engine.Event // the run's log: a dot for each renewal
	left           []engine.Time  // the lease time left at each renewal, sorted
	// live draws the dots as a live picture draws its marks: each with
	// its x in units of the live scale's finest (dMinSpan, data-x), from
	// which the page moves it to a new scale itself (OpScale), so a new
	// scale is the axis' labels and one number, not the chart again.
	live bool
}

// NewChart lays out the remaining-time chart of runs. The vertical scale is
// the largest lease duration among the runs.
func NewChart(id, lang string, runs []ChartRun) *Chart {
	c := &Chart{}
	c.layout(id, lang, runs)
	return c
}

// layout lays runs out into c, reusing its panels' room: a playing
// session keeps its live chart and lays it out again on a new scale.
func (c *Chart) layout(id, lang string, runs []ChartRun) {
	panels := c.Panels[:0]
	*c = Chart{ID: id, Lang: lang, Title: catalog.T(lang, "chart.title"), Width: chartPanelW * max(1, len(runs)), Height: chartH}
	ymax := chartYMax(runs)
	for i, r := range runs {
		span := max(r.World.Now(), engine.Second)
		if r.Live {
			span = liveChartSpan(r.World.Now())
		}
		var left []engine.Time
		if i < cap(panels) {
			left = panels[:i+1][i].left[:0]
		}
		p := newChartPanel(i, span, ymax)
		p.Label, p.events, p.live = r.Label, r.World.Events(), r.Live
		for _, e := range p.events {
			if e.Kind == engine.KindRenewed {
				left = append(left, engine.Time(e.Value))
			}
		}
		slices.Sort(left)
		p.left = left
		panels = append(panels, p)
	}
	c.Panels = panels
}

// renewals is how many renewals c's panels draw.
func (c *Chart) renewals() int {
	n := 0
	for i := range c.Panels {
		n += len(c.Panels[i].left)
	}
	return n
}

// The chart's geometry: one panel per run.
const chartPanelW, chartH, chartLeft, chartRight, chartTop, chartBottom = 460, 260, 56, 24, 34, 40

// newChartPanel is panel i's frame, for span of time and a vertical scale
// up to ymax.
func newChartPanel(i int, span, ymax engine.Time) chartPanel {
	return chartPanel{X0: i*chartPanelW + chartLeft, X1: (i+1)*chartPanelW - chartRight, Y0: chartTop, Y1: chartH - chartBottom, span: span, ymax: ymax}
}

func (p *chartPanel) x(t engine.Time) int { return p.X0 + int(int64(t)*int64(p.X1-p.X0)/int64(p.span)) }

// vx is a live panel's dot's x for time t, right of X0, in units its
// scale does not change (live); it is drawn at X0 + pxAt(vx, k).
func (p *chartPanel) vx(t engine.Time) int { return int(int64(t) * int64(p.X1-p.X0) / int64(dMinSpan)) }

// k is how much narrower a live panel draws its dots than vx counts.
func (p *chartPanel) k() float64 { return math.Round(1e6*float64(dMinSpan)/float64(p.span)) / 1e6 }

func (p *chartPanel) y(v engine.Time) int {
	v = min(max(v, 0), p.ymax)
	return p.Y1 - int(int64(v)*int64(p.Y1-p.Y0)/int64(p.ymax))
}

var workerColour = [6]string{"w0", "w1", "w2", "w3", "w4", "w5"}

// appendChartSummary appends the least and the median time left, of the
// sorted left, and how many renewals there were.
func appendChartSummary(b []byte, lang string, left []engine.Time) []byte {
	if len(left) == 0 {
		return append(b, catalog.T(lang, "chart.none")...)
	}
	pct := func(p int) engine.Time {
		i := (len(left)*p + 99) / 100
		return left[min(max(i-1, 0), len(left)-1)]
	}
	b = append(append(b, catalog.T(lang, "chart.min")...), ' ')
	b = append(catalog.AppendTime(b, lang, pct(0)), " · "...)
	b = append(append(b, catalog.T(lang, "chart.median")...), ' ')
	b = append(catalog.AppendTime(b, lang, pct(50)), " · "...)
	b = append(strconv.AppendInt(b, int64(len(left)), 10), ' ')
	return append(b, catalog.T(lang, "chart.renewals")...)
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

// RenderChartSVG writes the chart as a standalone SVG document.
func RenderChartSVG(w io.Writer, id, lang string, runs []ChartRun) error {
	if _, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"); err != nil {
		return err
	}
	return RemainingChart(NewChart(id, lang, runs)).Render(context.Background(), w)
}

// RemainingChart shows the lease time left at each successful renewal,
// one panel per run. Like the diagram it carries its own style.
func RemainingChart(c *Chart) Part { return func(w *Markup) { w.chart(c) } }

// RenewalChart is a world's remaining-time chart, once it has renewals.
func RenewalChart(id string, w *engine.World, lang string) Part {
	return func(out *Markup) {
		var c Chart
		c.layout(id+"-chart", lang, []ChartRun{{Label: catalog.T(lang, "chart.run"), World: w}})
		out.chartBox(&c)
	}
}

// LiveChart is a live lab's renewal chart, on a time scale that holds
// still while the run plays (ChartRun.Live).
func LiveChart(id string, w *engine.World, lang string) Part {
	return func(out *Markup) {
		var c Chart
		c.layout(id+"-chart", lang, []ChartRun{{Label: catalog.T(lang, "chart.run"), World: w, Live: true}})
		out.chartBox(&c)
	}
}

// LiveDiagram is the picture of a world: the space-time diagram and, once
// the world has renewals, the chart of lease time left at each of them.
func LiveDiagram(id string, w *engine.World, lang string, highlight map[int]bool) Part {
	return func(out *Markup) {
		out.figure(PageDiagram(id, w, lang, highlight))
		RenewalChart(id, w, lang)(out)
	}
}

// chartBox writes c in the page's box for it, once it has renewals.
func (w *Markup) chartBox(c *Chart) {
	if c.renewals() == 0 {
		return
	}
	w.s(`<div class="chart-box">`)
	w.chart(c)
	w.s("</div>")
}

func (w *Markup) chart(c *Chart) {
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 `)
	w.i(c.Width)
	w.s(" ")
	w.i(c.Height)
	w.s(`" class="chart" role="img" aria-labelledby="`)
	w.esc(c.ID)
	w.s(`-t" font-family="system-ui, sans-serif" font-size="13"><title id="`)
	w.esc(c.ID)
	w.s(`-t">`)
	w.esc(c.Title)
	w.s("</title>")
	w.s(chartStyle)
	for i := range c.Panels {
		w.chartPanel(c, i)
	}
	w.s("</svg>")
}

// chartPanel writes panel i: its label, its ticks, its axes, a dot per
// renewal and the summary.
func (w *Markup) chartPanel(c *Chart, i int) {
	p := &c.Panels[i]
	w.s(`<g><text class="plabel"`)
	w.num("x", p.X0)
	w.s(` y="18">`)
	w.esc(p.Label)
	w.s("</text> ")
	for _, v := range [3]engine.Time{0, p.ymax / 2, p.ymax} {
		y := p.y(v)
		w.s(`<line class="grid"`)
		w.num("x1", p.X0)
		w.num("x2", p.X1)
		w.num("y1", y)
		w.num("y2", y)
		w.s(`></line> <text class="tick"`)
		w.num("x", p.X0-6)
		w.num("y", y+4)
		w.s(` text-anchor="end">`)
		w.B = catalog.AppendTime(w.B, c.Lang, v) // a time's text needs no escaping
		w.s("</text> ")
	}
	if p.live {
		w.s(`<g id="`)
		w.esc(c.ID)
		w.s("-xt")
		w.i(i)
		w.s(`">`)
		w.chartTimes(c, p)
		w.s("</g> ")
	} else {
		w.chartTimes(c, p)
	}
	w.s(`<line class="axis"`)
	w.num("x1", p.X0)
	w.num("x2", p.X0)
	w.num("y1", p.Y0)
	w.num("y2", p.Y1)
	w.s(`></line> <line class="axis"`)
	w.num("x1", p.X0)
	w.num("x2", p.X1)
	w.num("y1", p.Y1)
	w.num("y2", p.Y1)
	w.s(`></line> <g id="`)
	w.esc(c.ID)
	w.s("-dots")
	w.i(i)
	w.s(`"`)
	if p.live {
		w.s(` data-k="`)
		w.chartScale(p)
		w.s(`"`)
	}
	w.s(">")
	w.chartDots(p, p.events)
	w.s(`</g> <text class="sum" id="`)
	w.esc(c.ID)
	w.s("-sum")
	w.i(i)
	w.s(`"`)
	w.num("x", p.X0)
	w.num("y", p.Y1+34)
	w.s(">")
	w.tmp = appendChartSummary(w.tmp[:0], c.Lang, p.left)
	w.B = appendEsc(w.B, w.tmp)
	w.s("</text></g>")
}

// chartTimes writes the time axis' labels of panel p.
func (w *Markup) chartTimes(c *Chart, p *chartPanel) {
	step := tickStepIn(p.span, p.X1-p.X0)
	for t := engine.Time(0); t <= p.span; t += step {
		w.s(`<text class="tick"`)
		w.num("x", p.x(t))
		w.num("y", p.Y1+18)
		w.s(` text-anchor="middle">`)
		w.B = catalog.AppendTime(w.B, c.Lang, t)
		w.s("</text> ")
	}
}

// chartScale writes a live panel's scale (chartPanel.live).
func (w *Markup) chartScale(p *chartPanel) {
	w.B = strconv.AppendFloat(w.B, p.k(), 'f', -1, 64)
}

// chartDots writes a dot for each renewal among events: when it
// happened, and the lease time it left.
func (w *Markup) chartDots(p *chartPanel, events []engine.Event) {
	for _, e := range events {
		if e.Kind != engine.KindRenewed {
			continue
		}
		w.s(`<circle class="`)
		w.s(workerColour[int(e.Node)%6])
		w.s(`"`)
		if p.live {
			vx := p.vx(e.T)
			w.num("data-x", vx)
			w.num("cx", p.X0+int(pxAt(int32(vx), p.k())))
		} else {
			w.num("cx", p.x(e.T))
		}
		w.num("cy", p.y(engine.Time(e.Value)))
		w.s(` r="3"></circle>`)
	}
}

// chartStyle is the chart's own style, as the templ component wrote it
// (the tabs before its end included).
const chartStyle = "<style>\n" + `.chart{--fg:#1d2433;--muted:#4b5366;--grid:#e3e7ef}
@media (prefers-color-scheme:dark){.chart{--fg:#e5e9f0;--muted:#b4bccb;--grid:#343c4e}}
.chart text{fill:var(--fg)}
.chart .axis{stroke:#8a93a6;stroke-width:1}
.chart .grid{stroke:var(--grid);stroke-width:1}
.chart .tick{fill:var(--muted);font-size:12px}
.chart .plabel{font-weight:700;font-size:14px}
.chart .sum{fill:var(--muted);font-size:12px}
.chart circle{fill-opacity:.75}
.chart .w0{fill:#2563eb}.chart .w1{fill:#d97706}.chart .w2{fill:#059669}.chart .w3{fill:#9333ea}.chart .w4{fill:#db2777}.chart .w5{fill:#0891b2}` + "\n\t\t</style>"
