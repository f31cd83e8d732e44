/**
 * A Vega-Lite specification rendered to SVG here (no browser, no network), made to fit its box:
 * the drawing scales down to the width it is given (viewBox, width 100 %, never wider than drawn),
 * and a shortened label carries its full text in an SVG `<title>`, shown on hover.
 */
import type { TopLevelSpec } from 'vega-lite';

const FONT = 'DejaVu Sans, Helvetica, Arial, sans-serif';
const CONFIG = {
  font: FONT,
  view: { stroke: null },
  axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e5e7eb' },
  legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 320 },
} as const;

const escapeXml = (text: string) => text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);

/** `fullTexts`: a shown (shortened) label → the text it stands for. */
export async function renderSvg(spec: TopLevelSpec, fullTexts: ReadonlyMap<string, string> = new Map()): Promise<string> {
  // Loaded on first use: Vega takes most of a second to load, which every other command would pay.
  const [{ View, parse }, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new View(parse(compile({ ...spec, config: { ...CONFIG, ...spec.config } }).spec), { renderer: 'none' });
  try {
    return withTitles(fitToBox(await view.toSVG()), fullTexts);
  } finally {
    view.finalize();
  }
}

/** width="W" height="H" → as wide as its box up to W, its height following (the viewBox keeps the proportions). */
export function fitToBox(svg: string): string {
  return svg.replace(/^<svg([^>]*?) width="([\d.]+)" height="([\d.]+)"/, (_m, attributes: string, width: string) => {
    return `<svg${attributes} width="100%" preserveAspectRatio="xMinYMin meet" style="max-width:${width}px;height:auto;display:block"`;
  });
}

function withTitles(svg: string, fullTexts: ReadonlyMap<string, string>): string {
  if (fullTexts.size === 0) return svg;
  const byShown = new Map([...fullTexts].map(([shown, full]) => [escapeXml(shown), escapeXml(full)]));
  return svg.replace(/(<text [^>]*>)([^<]*)<\/text>/g, (whole, open: string, shown: string) => {
    const full = byShown.get(shown);
    return full === undefined ? whole : `${open}${shown}<title>${full}</title></text>`;
  });
}
