/** The band at the top of the HTML report: the period's key figures against the period before. Pure. */
import { escapeHtml } from './html-table.js';
import type { Figures, SummaryFigures } from './summary-data.js';

const count = new Intl.NumberFormat('en-US');

/** Each figure, and whether more of it is worse (red), better (green) or neither (events). */
const FIGURES: ReadonlyArray<readonly [key: keyof Figures, label: string, worseWhenUp: boolean | null]> = [
  ['events', 'events', null],
  ['alertsOpened', 'alerts opened', true],
  ['alertsOpenAtEnd', 'alerts still open', true],
  ['failedLogins', 'failed logins', true],
  ['securityChanges', 'security changes', true],
];

/** "+12 %", "−3 %", "same", "new" against the previous figure. */
export function change(now: number, before: number): string {
  if (now === before) return 'same';
  if (before === 0) return 'new';
  const percent = Math.round(((now - before) / before) * 100);
  if (percent === 0) return now > before ? '+<1 %' : '−<1 %';
  return `${percent > 0 ? '+' : '−'}${Math.abs(percent)} %`;
}

export function renderSummaryBand(summary: SummaryFigures, days: string): string {
  const cards = FIGURES.map(([key, label, worseWhenUp]) => {
    const now = summary.current[key];
    const before = summary.previous[key];
    const trend =
      !summary.previousHasData || now === before || worseWhenUp === null ? 'flat' : now > before === worseWhenUp ? 'worse' : 'better';
    const against = summary.previousHasData ? `${change(now, before)} vs ${count.format(before)} before` : 'no data before';
    return `<div class="figure" data-figure="${key}"><div class="value">${count.format(now)}</div><div class="label">${escapeHtml(label)}</div><div class="before ${trend}">${escapeHtml(against)}</div></div>`;
  });
  return `<section id="summary" class="summary" aria-label="key figures">
<div class="figures">${cards.join('')}</div>
<p class="note">${
    summary.previousHasData
      ? `Each against the ${escapeHtml(days)} before.`
      : `The warehouse holds no event from before this period, so there is nothing to compare with.`
  } “Still open”: alerts open at the end of the period, ${escapeHtml(openedBefore(summary))}.</p>
</section>`;
}

/** `71 of them opened before it` / `all opened in it`: what the alerts section below says too. */
function openedBefore(summary: SummaryFigures): string {
  const before = summary.openAtEndOpenedBefore;
  return before === 0 ? 'all opened in it' : `${count.format(before)} of them opened before it`;
}
