/**
 * The HTML report's stylesheet: fits a 1280 px laptop screen and A4 landscape paper. Nothing scrolls
 * sideways: charts scale to their box (svg.ts), tables take the page's width and wrap long words,
 * timestamps and numbers stay on one line. Printed, each section starts a page.
 */
export const REPORT_STYLE = `
* { box-sizing: border-box; }
body { font: 14px/1.45 'DejaVu Sans', Helvetica, Arial, sans-serif; color: #111827; margin: 1.5rem auto; max-width: 1180px; padding: 0 1.25rem; }
h1 { font-size: 1.6rem; margin: 0 0 .2rem; }
h2 { margin: 2.2rem 0 .3rem; border-bottom: 1px solid #e5e7eb; padding-bottom: .3rem; }
h3 { margin: 1.4rem 0 .3rem; font-size: 1rem; }
.meta, .note, .rule { color: #4b5563; } .empty { color: #4b5563; font-style: italic; }
.rule { font-size: 12.5px; margin: .3rem 0 0; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: .75rem; margin-top: 1rem; }
.figure { border: 1px solid #e5e7eb; border-radius: 6px; padding: .6rem .8rem; background: #f9fafb; }
.figure .value { font-size: 1.7rem; font-weight: 700; font-variant-numeric: tabular-nums; }
.figure .label { font-weight: 600; }
.figure .before { font-size: 12.5px; color: #4b5563; }
.figure .worse { color: #b91c1c; } .figure .better { color: #15803d; }
figure.chart { margin: .8rem 0; max-width: 100%; }
figure.chart figcaption { margin-bottom: .4rem; }
.chart-title { font-weight: 600; }
.how-to-read { color: #4b5563; font-size: 12.5px; }
table { border-collapse: collapse; font-size: 12.5px; margin: .6rem 0 1rem; max-width: 100%; }
th, td { border-bottom: 1px solid #e5e7eb; padding: .25rem .5rem; text-align: left; vertical-align: top; overflow-wrap: break-word; }
th { background: #f9fafb; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.when { white-space: nowrap; font-variant-numeric: tabular-nums; }
td.none { color: #9ca3af; } td.id, td.nowrap { white-space: nowrap; } td.name { overflow-wrap: break-word; min-width: 7em; }
@page { size: A4 landscape; margin: 10mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 12px; }
  table { font-size: 11px; }
  section { break-before: page; }
  section.summary { break-before: auto; }
  h2 { margin-top: 0; }
  figure.chart, .figure { break-inside: avoid; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; }
}
`;
