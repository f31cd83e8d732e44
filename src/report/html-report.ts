/**
 * The `report --html` file: one self-contained page (inline SVG charts, inline CSS, no script, no
 * network): the period's key figures against the period before, then each section's chart with its
 * title and "how to read", and the table behind it.
 */
import { formatTimestamp } from '../time.js';
import { escapeHtml } from './html-table.js';
import type { ReportData } from './report-data.js';
import { reportSections, type Section } from './report-sections.js';
import { REPORT_STYLE } from './report-style.js';
import { renderSummaryBand } from './summary-band.js';
import { renderSvg } from './svg.js';
import { shortTimestamp } from './units.js';

async function renderSection(section: Section): Promise<string> {
  const chart = section.chart;
  const figure = chart
    ? `<figure class="chart" data-chart="${section.id}">
<figcaption><div class="chart-title">${escapeHtml(chart.title)}</div><div class="how-to-read">${escapeHtml(chart.howToRead)}</div></figcaption>
${await renderSvg(chart.chart.spec, chart.chart.fullTexts)}
${chart.rule ? `<p class="rule">${escapeHtml(chart.rule)}</p>` : ''}
</figure>`
    : `<p class="empty" data-empty="${section.id}">${escapeHtml(section.noChart)}</p>`;
  return `<section id="${section.id}">
<h2>${escapeHtml(section.title)}</h2>
<p class="note">${escapeHtml(section.note)}</p>
${figure}
${section.tables}
</section>`;
}

/** "14 days", "36 hours". */
function periodLength(since: Date, until: Date): string {
  const hours = (until.getTime() - since.getTime()) / 3_600_000;
  return hours % 24 === 0 ? `${hours / 24} ${hours === 24 ? 'day' : 'days'}` : `${Math.round(hours)} hours`;
}

export async function renderHtmlReport(data: ReportData, generatedAt: Date): Promise<string> {
  const { since, until, scopes } = data.filter;
  const length = periodLength(since, until);
  const named = scopes.map((s) => `<span title="${escapeHtml(s)}">${escapeHtml(data.scopeNames.get(s) ?? s)}</span>`);
  const rendered = await Promise.all(reportSections(data).map(renderSection));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>events-mirror report ${escapeHtml(formatTimestamp(since))} to ${escapeHtml(formatTimestamp(until))}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<header>
<h1>events-mirror report</h1>
<p class="meta">The last ${length}: events created from <time datetime="${formatTimestamp(since)}">${shortTimestamp(since)}</time> to <time datetime="${formatTimestamp(until)}">${shortTimestamp(until)}</time> UTC, ${
    scopes.length > 0 ? `scopes ${named.join(', ')}` : 'all scopes'
  }. Generated ${escapeHtml(shortTimestamp(generatedAt))} UTC from the warehouse.</p>
</header>
${renderSummaryBand(data.summary, length)}
${rendered.join('\n')}
</body>
</html>
`;
}
