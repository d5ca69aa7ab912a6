import { scaleBand, scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';
import { formatMoney, numberFormat } from './format.js';
import type { Locale } from './i18n.js';

/**
 * Server-rendered charts: pure functions from data to SVG markup (a string, every text escaped), for
 * pages under a strict CSP (no script, no style attribute). Each chart is `role="img"` with a
 * `<title>` and a `<desc>`, has a viewBox (it scales to the width of a phone), and takes its colours
 * from CSS classes of pages.css (`chart-*`, `series-*`). Positions come from d3-scale and d3-shape;
 * the numbers are only drawn here — the page shows them exactly in a table beside the chart.
 */

/** Width and height of a chart's viewBox (user units; the page scales it to its column). */
export const CHART_WIDTH = 480;
export const CHART_HEIGHT = 260;
const MARGIN = { top: 12, right: 12, bottom: 44, left: 84 };
/** At most this many labels under the x axis (a phone could not read more). */
const MAX_X_LABELS = 8;

export interface ChartSeries {
  /** Shown in the legend (escaped). */
  name: string;
  /** The series' CSS class suffix: `series-<key>` colours it. */
  key: string;
  /** One value per label (positive up, negative down). */
  values: number[];
}

export interface ChartInput {
  title: string;
  desc: string;
  /** The x axis' categories (periods), in order (named so in each bar's title). */
  labels: string[];
  /** What the x axis shows under each category (short; a line break starts a second line), `labels` by default. */
  axisLabels?: string[];
  series: ChartSeries[];
  /** An axis tick's label (e.g. compactMoney). */
  format: (value: number) => string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeXml = (text: string): string => String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
const n = (value: number) => (Math.round(value * 100) / 100).toString();
const cssKey = (key: string) => key.replace(/[^a-z0-9_-]/gi, '');

/** The y scale of values (0 always in view), rounded to nice ticks. */
function yScale(values: number[]) {
  const lo = Math.min(0, ...values);
  let hi = Math.max(0, ...values);
  if (lo === 0 && hi === 0) hi = 1;
  return scaleLinear()
    .domain([lo, hi])
    .nice(5)
    .range([CHART_HEIGHT - MARGIN.bottom, MARGIN.top]);
}

function xScale(labels: string[]) {
  return scaleBand<string>()
    .domain(labels.map((_, i) => String(i)))
    .range([MARGIN.left, CHART_WIDTH - MARGIN.right])
    .paddingInner(0.2)
    .paddingOuter(0.1);
}

function frame(input: ChartInput, kind: string, body: string, y: ReturnType<typeof yScale>, x: ReturnType<typeof xScale>): string {
  const id = `chart-${kind}-${Math.abs(hash(input.title + input.labels.join()))}`;
  const ticks = y.ticks(5).map((v) => {
    const py = n(y(v));
    return `<g class="chart-tick"><line class="chart-grid${v === 0 ? ' chart-zero' : ''}" x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${py}" y2="${py}"/><text class="chart-label" x="${MARGIN.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${escapeXml(input.format(v))}</text></g>`;
  });
  const every = Math.max(1, Math.ceil(input.labels.length / MAX_X_LABELS));
  const xLabels = (input.axisLabels ?? input.labels)
    .map((label, i) => {
      if (i % every !== 0) return '';
      const cx = n((x(String(i)) ?? 0) + x.bandwidth() / 2);
      const lines = label.split('\n').map((text, k) => `<tspan x="${cx}" dy="${k === 0 ? 0 : '1.15em'}">${escapeXml(text)}</tspan>`);
      return `<text class="chart-label" x="${cx}" y="${CHART_HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${lines.join('')}</text>`;
    })
    .join('');
  return (
    `<svg class="chart chart-${kind}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-labelledby="${id}-t ${id}-d" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${id}-t">${escapeXml(input.title)}</title><desc id="${id}-d">${escapeXml(input.desc)}</desc>` +
    `<g class="chart-axis">${ticks.join('')}</g><g class="chart-x">${xLabels}</g>${body}</svg>`
  );
}

/** A line per series over the labels (e.g. MRR per period), a dot on each value. */
export function lineChart(input: ChartInput): string {
  const y = yScale(input.series.flatMap((s) => s.values));
  const x = xScale(input.labels);
  const cx = (i: number) => (x(String(i)) ?? 0) + x.bandwidth() / 2;
  const body = input.series
    .map((s) => {
      const path = line<number>()
        .x((_, i) => cx(i))
        .y((v) => y(v))(s.values);
      const dots = s.values.map((v, i) => `<circle class="chart-dot" cx="${n(cx(i))}" cy="${n(y(v))}" r="3"/>`).join('');
      return `<g class="chart-series series-${cssKey(s.key)}" data-series="${escapeXml(s.key)}"><path class="chart-line" d="${path ?? ''}"/>${dots}</g>`;
    })
    .join('');
  return frame(input, 'line', body, y, x);
}

/**
 * Bars per label, stacked from the zero line: positive values of the series upwards, negative ones
 * downwards (e.g. MRR's new, expansion and reactivation up; contraction and churn down). Every value
 * is a bar (periods × series rects; a zero is a bar of no height), each with a <title> of its value.
 */
export function barChart(input: ChartInput): string {
  const up = input.labels.map((_, i) => input.series.reduce((sum, s) => sum + Math.max(0, s.values[i] ?? 0), 0));
  const down = input.labels.map((_, i) => input.series.reduce((sum, s) => sum + Math.min(0, s.values[i] ?? 0), 0));
  const y = yScale([...up, ...down]);
  const x = xScale(input.labels);
  const top = input.labels.map(() => 0);
  const bottom = input.labels.map(() => 0);
  const body = input.series
    .map((s) => {
      const bars = input.labels
        .map((label, i) => {
          const v = s.values[i] ?? 0;
          const from = v >= 0 ? top[i] : bottom[i];
          const to = from + v;
          if (v >= 0) top[i] = to;
          else bottom[i] = to;
          const y1 = Math.min(y(from), y(to));
          const h = Math.abs(y(from) - y(to));
          return `<rect class="chart-bar" x="${n(x(String(i)) ?? 0)}" y="${n(y1)}" width="${n(x.bandwidth())}" height="${n(h)}" data-value="${n(v)}"><title>${escapeXml(`${label} · ${s.name}: ${input.format(v)}`)}</title></rect>`;
        })
        .join('');
      return `<g class="chart-series series-${cssKey(s.key)}" data-series="${escapeXml(s.key)}">${bars}</g>`;
    })
    .join('');
  return frame(input, 'bar', body, y, x);
}

/** The legend of a chart's series (HTML; its colours by the same classes). */
export function chartLegend(series: Pick<ChartSeries, 'name' | 'key'>[]): string {
  return `<ul class="chart-legend">${series.map((s) => `<li class="series-${cssKey(s.key)}"><span class="chart-swatch" aria-hidden="true"></span>${escapeXml(s.name)}</li>`).join('')}</ul>`;
}

/**
 * An amount as an axis reads it: `$ 1,2 M`, `$ 45 mil`, `$ 950` in es-CO; `COP 1.2M`, `COP 45K` in
 * English (the symbol the page's money format gives the currency).
 */
export function compactMoney(value: number, currency: string, locale: Locale): string {
  const symbol = formatMoney('0', currency, locale).replace(/0/, '').trim();
  const abs = Math.abs(value);
  const [div, unit] = abs >= 1e9 ? [1e9, locale === 'en' ? 'B' : 'mil M'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e3 ? [1e3, locale === 'en' ? 'K' : 'mil'] : [1, ''];
  const digits = numberFormat(locale, { maximumFractionDigits: div === 1 ? 0 : 1 }).format(abs / div);
  const sign = value < 0 ? '-' : '';
  return locale === 'en' ? `${sign}${symbol} ${digits}${unit}` : `${sign}${symbol} ${digits}${unit ? ` ${unit}` : ''}`;
}

/** A rate (decimal string, 0.0523) as a percentage: `5,2 %` in es-CO, `5.2%` in English; '—' when there is none. */
export function formatRate(rate: string | number | null | undefined, locale: Locale): string {
  if (rate === null || rate === undefined || rate === '') return '—';
  const value = Number(rate) * 100;
  if (!Number.isFinite(value)) return '—';
  const digits = numberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(value);
  return locale === 'en' ? `${digits}%` : `${digits} %`;
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}
