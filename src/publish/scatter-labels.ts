/**
 * Labels beside the points of a scatter that never cover one another: the chart's axes are given
 * fixed ends (niceEnd), so where each point lands is known before ECharts draws it, and each
 * label is moved down (or up, at the bottom of the plot) just clear of those placed before it.
 * ECharts' own labelLayout shifts labels after the fact and still let four volumes' names pile
 * up at one corner.
 */
import { textWidth } from './chart-layout.js';

/** A round axis end at or above `v` (with some room): 1, 2, 2.5 or 5 times a power of ten. */
export function niceEnd(v: number): number {
  if (!(v > 0)) return 1;
  const target = v * 1.08;
  const power = 10 ** Math.floor(Math.log10(target));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= target) ?? 10;
  return step * power;
}

export interface PlotBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface Placement {
  position: 'right' | 'left';
  /** Pixels the label is moved down from beside its point. */
  dy: number;
}

const LABEL_PX = 11;
const LABEL_HEIGHT = 15;
const GAP = 8;

/**
 * Where each label goes, for points at pixels `at` inside `plot`, within a chart `width` wide:
 * right of its point, or left where the right has no room.
 */
export function placeLabels(at: ReadonlyArray<{ x: number; y: number; text: string }>, plot: PlotBox, width: number): Placement[] {
  const boxes = at.map((p) => {
    const w = textWidth(p.text, LABEL_PX);
    const right = p.x + GAP + w <= width - 4;
    const x0 = right ? p.x + GAP : p.x - GAP - w;
    const top = Math.min(Math.max(p.y - LABEL_HEIGHT / 2, plot.top), plot.bottom - LABEL_HEIGHT);
    return { x0, x1: x0 + w, top, want: p.y - LABEL_HEIGHT / 2, right };
  });
  const order = boxes.map((_, i) => i).sort((a, b) => boxes[a].top - boxes[b].top);
  const across = (a: number, b: number): boolean => boxes[a].x0 < boxes[b].x1 && boxes[b].x0 < boxes[a].x1;
  // Down the plot: each clear of those above it.
  order.forEach((i, k) => {
    for (const j of order.slice(0, k)) if (across(i, j)) boxes[i].top = Math.max(boxes[i].top, boxes[j].top + LABEL_HEIGHT + 1);
  });
  // Back up from the bottom: none past the plot's bottom, each clear of those below it.
  [...order].reverse().forEach((i, k, rev) => {
    let limit = plot.bottom - LABEL_HEIGHT;
    for (const j of rev.slice(0, k)) if (across(i, j)) limit = Math.min(limit, boxes[j].top - LABEL_HEIGHT - 1);
    boxes[i].top = Math.min(boxes[i].top, limit);
  });
  return boxes.map((b) => ({ position: b.right ? 'right' : 'left', dy: Math.round(b.top - b.want) }));
}
