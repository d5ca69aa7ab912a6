import { describe, expect, it } from '@jest/globals';
import { barChart, chartLegend, compactMoney, formatRate, lineChart } from './charts.js';

const labels = ['ene 2026', 'feb 2026', 'mar 2026'];
const format = (v: number) => compactMoney(v, 'COP', 'es-CO');

/** The attributes of every `<tag …>` in the markup. */
function elements(svg: string, tag: string): Record<string, string>[] {
  return [...svg.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map((m) => Object.fromEntries([...m[1].matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));
}

describe('charts (server-rendered SVG)', () => {
  it('a line chart is an image with a title, a description, a viewBox and a path through every value', () => {
    const svg = lineChart({ title: 'MRR', desc: 'MRR por periodo', labels, series: [{ name: 'MRR', key: 'mrr', values: [1_000_000, 1_500_000, 1_200_000] }], format });
    expect(svg).toMatch(/^<svg [^>]*role="img"/);
    expect(svg).toMatch(/viewBox="0 0 \d+ \d+"/);
    expect(svg).toContain('<title id=');
    expect(svg).toContain('>MRR por periodo</desc>');
    const [path] = elements(svg, 'path');
    expect(path.class).toBe('chart-line');
    // M x,y then two L segments: one point per value.
    expect(path.d.match(/[ML]/g)).toEqual(['M', 'L', 'L']);
    // The highest value is drawn highest (smallest y).
    const dots = elements(svg, 'circle').map((c) => Number(c.cy));
    expect(dots).toHaveLength(3);
    expect(dots[1]).toBeLessThan(dots[2]);
    expect(dots[2]).toBeLessThan(dots[0]);
    expect(svg).not.toMatch(/style=/);
  });

  it('a bar chart has periods × series bars; negative ones hang below the zero line and positive ones stand on it', () => {
    const svg = barChart({
      title: 'Movimientos',
      desc: 'd',
      labels,
      series: [
        { name: 'Nuevo', key: 'new', values: [300_000, 0, 50_000] },
        { name: 'Expansión', key: 'expansion', values: [20_000, 10_000, 0] },
        { name: 'Cancelación', key: 'churn', values: [-100_000, -40_000, 0] },
      ],
      format,
    });
    const bars = elements(svg, 'rect');
    expect(bars).toHaveLength(labels.length * 3);
    const zero = elements(svg, 'line').find((l) => l.class.includes('chart-zero'))!;
    expect(zero).toBeDefined();
    const zeroY = Number(zero.y1);
    for (const bar of bars) {
      const value = Number(bar['data-value']);
      const top = Number(bar.y);
      const bottom = top + Number(bar.height);
      // Positive bars are wholly above the zero line, negative ones wholly below it.
      if (value > 0) expect(bottom).toBeLessThanOrEqual(zeroY + 0.01);
      if (value > 0) expect(top).toBeLessThan(zeroY);
      if (value < 0) expect(top).toBeGreaterThanOrEqual(zeroY - 0.01);
      if (value < 0) expect(bottom).toBeGreaterThan(zeroY);
      if (value === 0) expect(Number(bar.height)).toBe(0);
    }
    // Stacked: the second positive series of a period starts where the first ended.
    const [new0, , , exp0, , , churn0] = bars;
    expect(Number(new0.y) + Number(new0.height)).toBeCloseTo(zeroY, 1);
    expect(Number(churn0.y)).toBeCloseTo(zeroY, 1);
    expect(Number(exp0.y) + Number(exp0.height)).toBeCloseTo(Number(new0.y), 1);
    expect(svg).toContain('class="chart-series series-churn"');
  });

  it('axis ticks come from the scale, labelled in es-CO compact money', () => {
    const svg = barChart({ title: 't', desc: 'd', labels, series: [{ name: 'x', key: 'x', values: [1_200_000, -600_000, 0] }], format });
    const ticks = [...svg.matchAll(/<text class="chart-label"[^>]*text-anchor="end"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toContain('$ 0');
    expect(ticks).toEqual(['-$ 1 M', '-$ 500 mil', '$ 0', '$ 500 mil', '$ 1 M', '$ 1,5 M']);
  });

  it('escapes every text it is given', () => {
    const evil = '<script>alert("x")</script> & co';
    const svg = barChart({ title: evil, desc: evil, labels: [evil], series: [{ name: evil, key: 'a"b', values: [1] }], format: () => evil });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(svg).not.toContain('a"b');
    expect(chartLegend([{ name: evil, key: 'k' }])).not.toContain('<script>');
  });

  it('formats compact money and rates as people read them in es-CO and English', () => {
    expect(compactMoney(1_234_567, 'COP', 'es-CO')).toBe('$ 1,2 M');
    expect(compactMoney(45_000, 'COP', 'es-CO')).toBe('$ 45 mil');
    expect(compactMoney(950, 'COP', 'es-CO')).toBe('$ 950');
    expect(compactMoney(-2_500_000, 'COP', 'es-CO')).toBe('-$ 2,5 M');
    expect(compactMoney(1_500_000_000, 'COP', 'es-CO')).toBe('$ 1,5 mil M');
    expect(compactMoney(1_234_567, 'COP', 'en')).toMatch(/^\S+ 1\.2M$/);
    expect(formatRate('0.0523', 'es-CO')).toBe('5,2 %');
    expect(formatRate('0.0523', 'en')).toBe('5.2%');
    expect(formatRate(null, 'es-CO')).toBe('—');
  });

  it('shows at most eight axis labels, each line of a label in its own tspan', () => {
    const many = Array.from({ length: 12 }, (_, i) => `m${i}`);
    const svg = lineChart({ title: 't', desc: 'd', labels: many, axisLabels: many.map((m, i) => (i === 0 ? `${m}\n2026` : m)), series: [{ name: 'x', key: 'x', values: many.map(() => 1) }], format });
    const shown = [...svg.matchAll(/<text class="chart-label"[^>]*text-anchor="middle">(.*?)<\/text>/g)].map((m) => m[1].replace(/<tspan[^>]*>/g, '|').replace(/<\/tspan>/g, ''));
    expect(shown).toEqual(['|m0|2026', '|m2', '|m4', '|m6', '|m8', '|m10']);
  });

  it('a chart of nothing (all zero) still draws its axis and bars of no height', () => {
    const svg = barChart({ title: 't', desc: 'd', labels, series: [{ name: 'x', key: 'x', values: [0, 0, 0] }], format });
    expect(elements(svg, 'rect').every((r) => r.height === '0')).toBe(true);
    expect(svg).toContain('chart-zero');
  });
});
