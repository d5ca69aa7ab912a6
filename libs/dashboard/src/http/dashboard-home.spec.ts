import { describe, expect, it } from '@jest/globals';
import type { ReportPeriod, RevenueReport } from '#analytics/read-models/revenue-report.js';
import { pages } from './dashboard-page.js';
import { axisLabel, homeView, INTERVALS, MOVEMENT_TYPES, parseAsOf, periodCount, readControls } from './dashboard-home.js';
import { HOME_MESSAGES } from './home-messages.js';

const NOW = new Date('2026-11-26T21:41:00Z'); // 16:41 in Bogotá

function period(start: string, end: string, over: Partial<ReportPeriod> = {}): ReportPeriod {
  return {
    start,
    end,
    new: '0',
    expansion: '0',
    contraction: '0',
    churn: '0',
    reactivation: '0',
    net_new: '0',
    mrr_start: '0',
    mrr: '0',
    active_subscriptions: 0,
    paying_customers: 0,
    new_subscriptions: 0,
    churned_subscriptions: 0,
    reactivated_subscriptions: 0,
    subscriber_churn_rate: null,
    revenue_churn_rate: null,
    net_revenue_churn_rate: null,
    arpu: null,
    collected: '0',
    refunded: '0',
    net_revenue: '0',
    at_risk: '0',
    recovered: '0',
    ...over,
  };
}

/** Three months of a small business: MRR grows, one churn in March, a refund. */
export const FIXTURE: RevenueReport = {
  object: 'revenue_report',
  currency: 'COP',
  from: '2026-01-01',
  to: '2026-03-31',
  interval: 'month',
  as_of: '2026-04-01T05:00:00.000Z',
  periods: [
    period('2026-01-01', '2026-01-31', { new: '1234567.5', net_new: '1234567.5', mrr: '1234567.5', active_subscriptions: 10, paying_customers: 9, arpu: '137174.17', collected: '1234567.5', net_revenue: '1234567.5' }),
    period('2026-02-01', '2026-02-28', { expansion: '100000', contraction: '50000', net_new: '50000', mrr_start: '1234567.5', mrr: '1284567.5', active_subscriptions: 10, paying_customers: 9, collected: '1284567.5', refunded: '49900', net_revenue: '1234667.5', revenue_churn_rate: '0.0405' }),
    period('2026-03-01', '2026-03-31', { churn: '99800', reactivation: '49900', net_new: '-49900', mrr_start: '1284567.5', mrr: '1234667.5', active_subscriptions: 9, paying_customers: 8, churned_subscriptions: 1, subscriber_churn_rate: '0.1', revenue_churn_rate: '0.0777', collected: '1234667.5', net_revenue: '1234667.5' }),
  ],
  totals: period('2026-01-01', '2026-03-31', {
    mrr: '1234667.5',
    active_subscriptions: 9,
    paying_customers: 8,
    arpu: '154333.44',
    net_revenue: '3703902.5',
    at_risk: '49900',
    recovered: '39900',
    subscriber_churn_rate: '0.0523',
    revenue_churn_rate: '0.1182',
  }),
  renewals: { next_7_days: { count: 3, amount: '149700' }, next_30_days: { count: 9, amount: '1234667.5' } },
};

function render(locale: 'es-CO' | 'en', report: RevenueReport = FIXTURE) {
  const t = pages.helpers(locale).t;
  return pages.renderToString(
    'dash-home',
    {
      form: { from: report.from, to: report.to, interval: report.interval, currency: report.currency, as_of: '' },
      errors: {},
      refused: null,
      report,
      view: homeView(report, t, locale),
      intervals: INTERVALS,
      movementTypes: MOVEMENT_TYPES,
      movementsHref: '/dashboard/home/movements?from=2026-01-01',
      nav: [{ key: 'home', title: t('dash.home.nav') }],
      people: [],
      mode: 'test',
      csrf: 'x',
      email: 'ana@example.com',
      role: 'owner',
    },
    { locale, title: t('dash.home.title') },
  );
}

describe('the home page over a fixture report', () => {
  it('shows the headline cards in es-CO money and percentages', () => {
    const html = render('es-CO');
    const card = (key: string) => new RegExp(`data-figure="${key}"><span class="figure-label">[^<]*</span><span class="figure">([^<]*)</span>`).exec(html)?.[1];
    expect(card('mrr')).toBe('$ 1.234.667,50');
    expect(card('active_subscriptions')).toBe('9');
    expect(card('paying_customers')).toBe('8');
    expect(card('arpu')).toBe('$ 154.333,44');
    expect(card('net_revenue')).toBe('$ 3.703.902,50');
    expect(card('at_risk')).toBe('$ 49.900');
    expect(card('recovered')).toBe('$ 39.900');
    expect(card('subscriber_churn_rate')).toBe('5,2 %');
    expect(card('revenue_churn_rate')).toBe('11,8 %');
    expect(card('renewals_7')).toBe('$ 149.700');
    expect(card('renewals_30')).toBe('$ 1.234.667,50');
    expect(html).toContain('3 renovaciones');
  });

  it('draws three charts, each with a table of the same numbers (caption, column and row headers)', () => {
    const html = render('es-CO');
    expect(html.match(/<svg class="chart /g)).toHaveLength(3);
    expect(html.match(/<svg [^>]*role="img"/g)).toHaveLength(3);
    // Movements: 3 periods × 5 series bars; revenue: 3 × 2.
    const movements = /data-chart="movements">([\s\S]*?)<\/section>/.exec(html)![1];
    expect(movements.match(/<rect /g)).toHaveLength(15);
    const revenue = /data-chart="revenue">([\s\S]*?)<\/section>/.exec(html)![1];
    expect(revenue.match(/<rect /g)).toHaveLength(6);
    expect(html.match(/<caption>/g)).toHaveLength(3);
    expect(html).toContain('<th scope="row" data-label="Periodo">ene 2026</th>');
    expect(html).toMatch(/data-field="mrr">\$ 1\.284\.567,50</);
    expect(html).toMatch(/data-field="churn">\$ 99\.800</);
    expect(html).toMatch(/data-field="refunded">\$ 49\.900</);
    // Axis labels in compact es-CO money.
    expect(html).toMatch(/>\$ 1,\d M</);
    // The movements chart links to its rows.
    expect(html).toContain('href="/dashboard/home/movements?from=2026-01-01"');
    expect(html).not.toMatch(/ style=/);
    expect(html).not.toMatch(/<script/);
  });

  it('reads in English with ?locale=en, every word from the catalog', () => {
    const html = render('en');
    expect(html).toContain('Paying customers');
    expect(html).toContain('5.2%');
    expect(html).toContain('MRR movements');
    expect(html).not.toMatch(/dash\.home\./);
    expect(render('es-CO')).not.toMatch(/dash\.home\./);
  });

  it('has every message in both languages', () => {
    expect(Object.keys(HOME_MESSAGES.en).sort()).toEqual(Object.keys(HOME_MESSAGES['es-CO']).sort());
  });
});

describe('the home page controls', () => {
  it('default to the last 12 months by month in COP, as of now', () => {
    const c = readControls({}, NOW);
    expect(c.errors).toEqual({});
    expect(c.params).toEqual({ from: '2025-12-01', to: '2026-11-26', interval: 'month', currency: 'COP', as_of: NOW.toISOString() });
    expect(c.form.as_of).toBe('');
  });

  it('read as_of in Bogotá time (UTC−5) and show it back the same', () => {
    const c = readControls({ from: '2026-01-01', to: '2026-03-31', interval: 'week', as_of: '2026-03-31T23:30' }, NOW);
    expect(c.params?.as_of).toBe('2026-04-01T04:30:00.000Z');
    expect(c.form.as_of).toBe('2026-03-31T23:30');
    expect(parseAsOf('2026-04-01T04:30:00Z')).toBe('2026-04-01T04:30:00.000Z');
    expect(parseAsOf('2026-02-30T10:00')).toBeNull();
    expect(parseAsOf('yesterday')).toBeNull();
  });

  it('refuse from after to, bad dates, an unknown interval and more than 400 periods, next to the field', () => {
    expect(readControls({ from: '2026-05-01', to: '2026-04-01' }, NOW).errors.to?.key).toBe('dash.home.error.order');
    expect(readControls({ from: '2026-13-01' }, NOW).errors.from?.key).toBe('dash.home.error.date');
    expect(readControls({ interval: 'year' }, NOW).errors.interval?.key).toBe('dash.home.error.interval');
    expect(readControls({ as_of: 'x' }, NOW).errors.as_of?.key).toBe('dash.home.error.as_of');
    const many = readControls({ from: '2025-01-01', to: '2026-03-01', interval: 'day' }, NOW);
    expect(many.params).toBeNull();
    expect(many.errors.to).toEqual({ key: 'dash.home.error.too_many', params: { max: '400', count: '425' } });
    expect(readControls({ from: '2025-01-01', to: '2026-02-04', interval: 'day' }, NOW).params).not.toBeNull(); // 400 days
  });

  it('label the axis short: the month, the year under the first and each January; the day over its month', () => {
    expect(axisLabel({ start: '2026-11-01' }, 0, 'month', 'es-CO')).toBe('nov\n2026');
    expect(axisLabel({ start: '2026-12-01' }, 1, 'month', 'es-CO')).toBe('dic');
    expect(axisLabel({ start: '2027-01-01' }, 2, 'month', 'en')).toBe('Jan\n2027');
    expect(axisLabel({ start: '2026-11-23' }, 3, 'week', 'es-CO')).toBe('23\nnov');
  });

  it('count periods by day, week (from Monday) and month', () => {
    expect(periodCount('2026-01-01', '2026-01-31', 'day')).toBe(31);
    expect(periodCount('2026-11-23', '2026-11-29', 'week')).toBe(1); // Monday to Sunday
    expect(periodCount('2026-11-22', '2026-11-23', 'week')).toBe(2); // Sunday, then Monday
    expect(periodCount('2025-12-01', '2026-11-26', 'month')).toBe(12);
  });
});
