import type { ReportInterval, ReportParams, ReportPeriod, RevenueReport } from '#analytics/read-models/revenue-report.js';
import { Money } from '#shared/money.js';
import { calendarDayOf, isCalendarDay } from '#shared/dates.js';
import { currency as currencyOf } from '#shared/money.js';
import { barChart, chartLegend, compactMoney, formatRate, lineChart } from '#web/charts.js';
import { dateTimeFormat, formatDate, formatMoney } from '#web/format.js';
import type { Locale, Translate } from '#web/i18n.js';

/**
 * The home page's controls read from the URL (from, to, interval, currency, as_of) and the report
 * turned into what dash-home.eta shows: headline cards, three charts (SVG) and their tables.
 */

export const INTERVALS: readonly ReportInterval[] = ['day', 'week', 'month'];
/** A range cut into more periods than this is refused (a chart and a table nobody can read). */
export const MAX_PERIODS = 400;
/** The account's zone is Bogotá: UTC−5 all year (no daylight saving time). */
const BOGOTA_OFFSET = '-05:00';

export interface HomeControls {
  /** What the form shows (as typed, or the defaults). */
  form: { from: string; to: string; interval: string; currency: string; as_of: string };
  /** The report's params, when every field is valid. */
  params: ReportParams | null;
  /** Field → message key (and its params), for the message next to the field. */
  errors: Record<string, { key: string; params?: Record<string, string> }>;
}

/** `YYYY-MM-DDTHH:mm[:ss]` in Bogotá (a datetime-local input) or an ISO instant with its zone → ISO instant; null if neither. */
export function parseAsOf(value: string): string | null {
  let text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(text)) text += BOGOTA_OFFSET;
  else if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return null;
  if (!isCalendarDay(text.slice(0, 10))) return null;
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** An instant as a datetime-local input shows it in Bogotá (`2026-11-26T16:41`, with `:05` when the seconds are not zero). */
export function bogotaLocal(iso: string): string {
  const local = new Date(Date.parse(iso) - 5 * 3_600_000).toISOString();
  return local.slice(17, 19) === '00' ? local.slice(0, 16) : local.slice(0, 19);
}

/** How many periods of `interval` the range from..to holds (weeks start on Monday, months on the 1st). */
export function periodCount(from: string, to: string, interval: ReportInterval): number {
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
  if (interval === 'day') return days;
  if (interval === 'week') {
    const weekday = (new Date(`${from}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
    return Math.ceil((days + weekday) / 7);
  }
  const [fy, fm] = from.split('-').map(Number);
  const [ty, tm] = to.split('-').map(Number);
  return (ty - fy) * 12 + (tm - fm) + 1;
}

/** The controls of a request's query: defaults are the last 12 months by month, in COP, as of now. */
export function readControls(query: Record<string, unknown>, now: Date): HomeControls {
  const str = (k: string) => (typeof query[k] === 'string' ? (query[k] as string).trim() : '');
  const errors: HomeControls['errors'] = {};
  const asOfText = str('as_of');
  const asOf = asOfText ? parseAsOf(asOfText) : now.toISOString();
  if (!asOf) errors.as_of = { key: 'dash.home.error.as_of' };
  const today = calendarDayOf(asOf ?? now.toISOString());
  const defaultFrom = `${addMonths(today.slice(0, 7), -11)}-01`;
  const form = { from: str('from') || defaultFrom, to: str('to') || today, interval: str('interval') || 'month', currency: (str('currency') || 'COP').toUpperCase(), as_of: asOfText && asOf ? bogotaLocal(asOf) : asOfText };
  if (!isCalendarDay(form.from)) errors.from = { key: 'dash.home.error.date' };
  if (!isCalendarDay(form.to)) errors.to = { key: 'dash.home.error.date' };
  if (!(INTERVALS as readonly string[]).includes(form.interval)) errors.interval = { key: 'dash.home.error.interval' };
  if (!/^[A-Z]{3}$/.test(form.currency) || !currencyOf(form.currency)) errors.currency = { key: 'dash.home.error.currency' };
  if (!errors.from && !errors.to && form.from > form.to) errors.to = { key: 'dash.home.error.order' };
  if (!errors.from && !errors.to && !errors.interval) {
    const count = periodCount(form.from, form.to, form.interval as ReportInterval);
    if (count > MAX_PERIODS) errors.to = { key: 'dash.home.error.too_many', params: { max: String(MAX_PERIODS), count: String(count) } };
  }
  const params = Object.keys(errors).length ? null : { from: form.from, to: form.to, interval: form.interval as ReportInterval, as_of: asOf!, currency: form.currency };
  return { form, params, errors };
}

function addMonths(month: string, delta: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 + delta, 1));
  return d.toISOString().slice(0, 7);
}

/** A period's label: `nov 2026` by month, `23 nov` by week (its Monday) or day. */
export function periodLabel(period: Pick<ReportPeriod, 'start'>, interval: ReportInterval, locale: Locale): string {
  const date = new Date(`${period.start}T12:00:00Z`);
  const options: Intl.DateTimeFormatOptions = interval === 'month' ? { month: 'short', year: 'numeric', timeZone: 'UTC' } : { day: 'numeric', month: 'short', timeZone: 'UTC' };
  return dateTimeFormat(locale, options).format(date).replace(/\./g, '').replace(/ de /g, ' ');
}

/**
 * A period under a chart's axis, short enough for a phone: the month (`ene`) with the year on a second
 * line for the first period and each January; by week or day the day with its month under it.
 */
export function axisLabel(period: Pick<ReportPeriod, 'start'>, index: number, interval: ReportInterval, locale: Locale): string {
  const date = new Date(`${period.start}T12:00:00Z`);
  const part = (o: Intl.DateTimeFormatOptions) => dateTimeFormat(locale, { ...o, timeZone: 'UTC' }).format(date).replace(/\./g, '');
  if (interval === 'month') return index === 0 || period.start.slice(5, 7) === '01' ? `${part({ month: 'short' })}\n${period.start.slice(0, 4)}` : part({ month: 'short' });
  return `${part({ day: 'numeric' })}\n${part({ month: 'short' })}`;
}

/** A chart's position only (pixels need numbers): the cards and tables show the decimal strings as they are. */
const num = (amount: string | null | undefined) => (amount ? new Money(amount).toNumber() : 0);
const magnitude = (amount: string) => Math.abs(num(amount));

export const MOVEMENT_TYPES = ['new', 'expansion', 'reactivation', 'contraction', 'churn'] as const;

/** The report as the page shows it: cards, charts (markup) and the rows of their tables. */
export function homeView(report: RevenueReport, t: Translate, locale: Locale) {
  const money = (amount: string | null) => (amount === null ? '—' : formatMoney(amount, report.currency, locale));
  const compact = (v: number) => compactMoney(v, report.currency, locale);
  const totals = report.totals;
  const labels = report.periods.map((p) => periodLabel(p, report.interval, locale));
  const axisLabels = report.periods.map((p, i) => axisLabel(p, i, report.interval, locale));
  const day = (d: string) => formatDate(`${d}T12:00:00-05:00`, locale, 'short');
  const range = t('dash.home.range', { from: day(report.from), to: day(report.to) });
  const cards = [
    { key: 'mrr', label: t('dash.home.card.mrr'), value: money(totals.mrr), note: t('dash.home.card.mrr_note') },
    { key: 'active_subscriptions', label: t('dash.home.card.active_subscriptions'), value: String(totals.active_subscriptions) },
    { key: 'paying_customers', label: t('dash.home.card.paying_customers'), value: String(totals.paying_customers) },
    { key: 'arpu', label: t('dash.home.card.arpu'), value: money(totals.arpu) },
    { key: 'net_revenue', label: t('dash.home.card.net_revenue'), value: money(totals.net_revenue), note: range },
    { key: 'at_risk', label: t('dash.home.card.at_risk'), value: money(totals.at_risk) },
    { key: 'recovered', label: t('dash.home.card.recovered'), value: money(totals.recovered), note: range },
    { key: 'subscriber_churn_rate', label: t('dash.home.card.subscriber_churn_rate'), value: formatRate(totals.subscriber_churn_rate, locale), note: range },
    { key: 'revenue_churn_rate', label: t('dash.home.card.revenue_churn_rate'), value: formatRate(totals.revenue_churn_rate, locale), note: range },
    {
      key: 'renewals_7',
      label: t('dash.home.card.renewals_7'),
      value: money(report.renewals.next_7_days.amount),
      note: t('dash.home.card.renewals_count', { count: String(report.renewals.next_7_days.count) }),
    },
    {
      key: 'renewals_30',
      label: t('dash.home.card.renewals_30'),
      value: money(report.renewals.next_30_days.amount),
      note: t('dash.home.card.renewals_count', { count: String(report.renewals.next_30_days.count) }),
    },
  ];

  const mrrChart = lineChart({
    title: t('dash.home.chart.mrr'),
    desc: t('dash.home.chart.mrr_desc', { range }),
    labels,
    axisLabels,
    series: [{ name: t('dash.home.card.mrr'), key: 'mrr', values: report.periods.map((p) => num(p.mrr)) }],
    format: compact,
  });
  const movementSeries = MOVEMENT_TYPES.map((type) => ({
    name: t(`dash.home.movement.${type}`),
    key: type,
    // Contraction and churn are drawn down, whatever sign the report gives their size.
    values: report.periods.map((p) => (type === 'contraction' || type === 'churn' ? -magnitude(p[type]) : num(p[type]))),
  }));
  const movementsChart = barChart({ title: t('dash.home.chart.movements'), desc: t('dash.home.chart.movements_desc', { range }), labels, axisLabels, series: movementSeries, format: compact });
  const revenueSeries = [
    { name: t('dash.home.col.collected'), key: 'collected', values: report.periods.map((p) => num(p.collected)) },
    { name: t('dash.home.col.refunded'), key: 'refunded', values: report.periods.map((p) => -magnitude(p.refunded)) },
  ];
  const revenueChart = barChart({ title: t('dash.home.chart.revenue'), desc: t('dash.home.chart.revenue_desc', { range }), labels, axisLabels, series: revenueSeries, format: compact });

  const rows = report.periods.map((p, i) => ({
    label: labels[i],
    start: p.start,
    end: p.end,
    mrr: money(p.mrr),
    active_subscriptions: String(p.active_subscriptions),
    paying_customers: String(p.paying_customers),
    arpu: money(p.arpu),
    new: money(p.new),
    expansion: money(p.expansion),
    reactivation: money(p.reactivation),
    contraction: money(p.contraction),
    churn: money(p.churn),
    net_new: money(p.net_new),
    subscriber_churn_rate: formatRate(p.subscriber_churn_rate, locale),
    revenue_churn_rate: formatRate(p.revenue_churn_rate, locale),
    collected: money(p.collected),
    refunded: money(p.refunded),
    net_revenue: money(p.net_revenue),
  }));
  return {
    cards,
    rows,
    charts: {
      mrr: mrrChart,
      movements: movementsChart,
      movementsLegend: chartLegend(movementSeries),
      revenue: revenueChart,
      revenueLegend: chartLegend(revenueSeries),
    },
  };
}

/** The movements page's link for the home page's range (the same as_of and currency: the same figures). */
export function movementsHref(params: ReportParams, extra: Record<string, string> = {}): string {
  return `/dashboard/home/movements?${new URLSearchParams({ from: params.from, to: params.to, as_of: params.as_of, currency: params.currency, ...extra }).toString()}`;
}
