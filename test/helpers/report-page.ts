/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * What a reader of the HTML report needs, measured in a real browser at one width (screen or print
 * media): nothing wider than its box, no axis showing the same label twice, a title and a one-line
 * "how to read" for every chart, names rather than ids, timestamps on one line. Each check returns what it found wrong, as
 * lines a failing test prints.
 */
import { pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';

/** A4 landscape is 297 mm wide; less the print stylesheet's 10 mm margins, at 96 px an inch. */
export const A4_LANDSCAPE_CONTENT_PX = Math.floor(((297 - 2 * 10) / 25.4) * 96);

export interface ReaderFindings {
  /** Elements wider than their box (or sticking out of their parent), as `tag#id.class: why`. */
  readonly overflowing: string[];
  /** Axes whose visible labels repeat, as `chart: label ×n`. */
  readonly repeatedAxisLabels: string[];
  /** Charts without a title or a one-line "how to read". */
  readonly unexplainedCharts: string[];
  /** Project ids shown as text where a name should be. */
  readonly visibleIds: string[];
  /** Timestamps in tables that wrap onto a second line. */
  readonly wrappedTimestamps: string[];
  /** How many charts the page has. */
  readonly charts: number;
}

export async function readAsReader(browser: Browser, file: string, width: number, media: 'screen' | 'print'): Promise<ReaderFindings> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width, height: 900 });
    await page.emulateMediaType(media);
    await page.setOfflineMode(true);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    return await page.evaluate(() => {
      const name = (e: Element) =>
        `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.split(' ').join('.')}` : ''}`;
      const where = (e: Element) => {
        const section = e.closest('section');
        return `${section ? `${section.id} ` : ''}${name(e)} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
      };
      const visible = (e: Element) => {
        for (let n: Element | null = e; n; n = n.parentElement) {
          const style = getComputedStyle(n);
          if (style.display === 'none' || style.visibility === 'hidden' || Number(style.opacity) === 0) return false;
          if (n.getAttribute('opacity') === '0') return false;
        }
        return true;
      };

      const overflowing: string[] = [];
      const pageWidth = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > pageWidth + 1)
        overflowing.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in ${pageWidth} px`);
      for (const e of document.body.querySelectorAll('*')) {
        if (!visible(e)) continue;
        const box = e.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) continue;
        if (e instanceof HTMLElement && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
          overflowing.push(`${where(e)}: content ${e.scrollWidth} px in a ${e.clientWidth} px box`);
        // An SVG part must stay inside its drawing; an HTML element inside its parent's box.
        const outer = e instanceof SVGElement && e.ownerSVGElement ? e.ownerSVGElement : e.parentElement;
        if (!outer) continue;
        const limit = outer.getBoundingClientRect();
        if (box.right > limit.right + 1 || box.left < limit.left - 1)
          overflowing.push(
            `${where(e)}: ${Math.round(box.left)}–${Math.round(box.right)} px outside its ${name(outer)} (${Math.round(limit.left)}–${Math.round(limit.right)} px)`,
          );
      }

      const repeatedAxisLabels: string[] = [];
      for (const axis of document.querySelectorAll('figure[data-chart] svg g.role-axis')) {
        const labels = [...axis.querySelectorAll('g.role-axis-label text')]
          .filter(visible)
          .map((t) => (t.firstChild?.textContent ?? t.textContent ?? '').trim())
          .filter((t) => t !== '');
        const counts = new Map<string, number>();
        for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
        const chart = axis.closest('figure')?.getAttribute('data-chart');
        for (const [label, n] of counts) if (n > 1) repeatedAxisLabels.push(`${chart}: "${label}" ×${n}`);
      }

      const unexplainedCharts: string[] = [];
      const figures = [...document.querySelectorAll('figure[data-chart]')];
      for (const figure of figures) {
        const id = figure.getAttribute('data-chart');
        const title = figure.querySelector('.chart-title')?.textContent?.trim() ?? '';
        const howTo = figure.querySelector('.how-to-read');
        if (title === '') unexplainedCharts.push(`${id}: no title`);
        if (!howTo || !visible(howTo)) {
          unexplainedCharts.push(`${id}: no "how to read" line`);
          continue;
        }
        const lineHeight = parseFloat(getComputedStyle(howTo).lineHeight);
        const lines = Math.round(howTo.getBoundingClientRect().height / lineHeight);
        if (!/^How to read: /.test(howTo.textContent ?? '') || lines > 1)
          unexplainedCharts.push(`${id}: "how to read" is ${lines} lines: ${howTo.textContent}`);
      }

      // Text a reader sees: the page's, and the charts' (tooltips, in <title>, may name the id).
      const svgText = [...document.querySelectorAll('svg text')].filter(visible).map((t) => t.firstChild?.textContent ?? '');
      const seen = `${document.body.innerText}\n${svgText.join('\n')}`;
      const visibleIds = [...new Set(seen.match(/group:[0-9a-f]{6,}/g) ?? [])];
      const wrappedTimestamps = [...document.querySelectorAll('td time')]
        .filter((t) => t.getClientRects().length > 1)
        .map((t) => `${t.closest('section')?.id}: ${t.textContent}`);
      return { overflowing, repeatedAxisLabels, unexplainedCharts, visibleIds, wrappedTimestamps, charts: figures.length };
    });
  } finally {
    await page.close();
  }
}
