/**
 * Where things go on a chart, worked out before ECharts draws it, so that nothing overlaps at
 * the chart's fixed size: a volume's one colour in every chart, text widths estimated on the
 * safe side, the legend's rows, the source line wrapped to the chart's width, and the room each
 * takes at the bottom (the grid ends above them, never under them).
 */

/** The default size of a chart, in pixels (a chart may ask for more). */
export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 360;

/** ECharts' own palette: a volume (a report row) has the colour of its index in every chart. */
export const PALETTE = ['#5470c6', '#91cc75', '#fac858', '#ee6666', '#73c0de', '#3ba272', '#fc8452', '#9a60b4', '#ea7ccc'];

export function colourOf(row: number): string {
  return PALETTE[row % PALETTE.length];
}

/** A sans-serif character's width at `fontPx`, on the wide side (capitals and digits included). */
export function textWidth(text: string, fontPx: number, perPx = 0.62): number {
  return Math.ceil(text.length * fontPx * perPx);
}

const LEGEND_FONT = 12;
const LEGEND_ICON = 25 + 5;
export const LEGEND_GAP = 20;
/** A legend row as ECharts draws it: its 14 px item and, between rows, the item gap again. */
export const LEGEND_ROW = 14 + LEGEND_GAP;

/** How many rows a horizontal legend of `names` takes within `width` pixels. */
export function legendRows(names: readonly string[], width: number): number {
  let rows = names.length ? 1 : 0;
  let used = 0;
  for (const name of names) {
    // A legend's names are mostly small letters and digits: a little narrower than the worst case.
    const item = LEGEND_ICON + textWidth(name, LEGEND_FONT, 0.58);
    if (used > 0 && used + LEGEND_GAP + item > width) {
      rows++;
      used = item;
    } else {
      used += (used > 0 ? LEGEND_GAP : 0) + item;
    }
  }
  return rows;
}

const SOURCE_FONT = 10;
const SOURCE_LINE = 13;

/** The source line in lines of words that fit `width` pixels (a word longer than a line is cut by characters). */
export function wrapText(text: string, width: number, fontPx = SOURCE_FONT): string[] {
  const perLine = Math.max(10, Math.floor(width / (fontPx * 0.62)));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    for (let w = word; w.length > 0; w = w.slice(perLine)) {
      const piece = w.slice(0, perLine);
      if (line && line.length + 1 + piece.length > perLine) {
        lines.push(line);
        line = piece;
      } else {
        line = line ? `${line} ${piece}` : piece;
      }
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The source line as a graphic at the bottom left, wrapped; its height in pixels. */
export function sourceGraphic(source: string | undefined, width: number): { graphic: object[]; height: number } {
  if (!source) return { graphic: [], height: 0 };
  const lines = wrapText(source, width - 16);
  return {
    graphic: [{ type: 'text', left: 8, bottom: 4, style: { text: lines.join('\n'), fontSize: SOURCE_FONT, lineHeight: SOURCE_LINE, fill: '#777' } }],
    height: 4 + lines.length * SOURCE_LINE,
  };
}
