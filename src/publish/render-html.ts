/**
 * The report as one self-contained HTML file: the tables, and every chart as inline SVG drawn
 * by ECharts' server-side renderer, each with the table it was drawn from beside it (so the
 * page reads with images off). No script, no external style, font or image: a
 * Content-Security-Policy forbids the page any request at all.
 */
import { createRequire } from 'node:module';

import type { Report } from './model.js';
import { groupCharts, type ChartOption, type ReportChart } from './charts.js';
import { groupTable, type TextTable } from './table.js';
import { pricesLine } from './render-text.js';

export const CHART_WIDTH = 720;
export const CHART_HEIGHT = 360;

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
.scroll{overflow:auto;max-width:100%}
figure.chart{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start;margin:1em 0;border-top:1px solid #eee;padding-top:.5em}
figure.chart .data{max-height:${CHART_HEIGHT}px;overflow:auto}
.prices{color:#555;font-size:90%}
td.failed,td.cancelled{color:#b00}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function tableHtml(t: TextTable, className = ''): string {
  const head = `<thead><tr>${t.header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr></thead>`;
  const body = t.rows.map((r) => `<tr>${r.map((c, i) => {
    const cls = c === 'failed' || c === 'cancelled' ? ` class="${c}"` : '';
    return i === 0 ? `<th scope="row">${escapeHtml(c)}</th>` : `<td${cls}>${escapeHtml(c)}</td>`;
  }).join('')}</tr>`).join('');
  return `<table${className ? ` class="${className}"` : ''}>${head}<tbody>${body}</tbody></table>`;
}

type EChartsModule = typeof import('echarts');

let echartsModule: EChartsModule | undefined;

/**
 * ECharts, loaded on first use (it is large and only this format needs it): its one-file
 * CommonJS build, which loads in a fraction of the time its ES modules (hundreds of files) take.
 */
export function loadECharts(): EChartsModule {
  echartsModule ??= createRequire(import.meta.url)('echarts') as EChartsModule;
  return echartsModule;
}

function svgOf(echarts: EChartsModule, option: ChartOption): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: CHART_WIDTH, height: CHART_HEIGHT });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

function figureHtml(echarts: EChartsModule, chart: ReportChart): string {
  return `<figure class="chart" data-kind="${escapeHtml(chart.kind)}">`
    + `<div class="svg" role="img" aria-label="${escapeHtml(chart.title)}">${svgOf(echarts, chart.option)}</div>`
    + `<div class="data">${tableHtml(chart.table, 'chart-data')}</div>`
    + `<figcaption>${escapeHtml(chart.title)}</figcaption></figure>`;
}

export interface HtmlOptions {
  title?: string;
}

export async function renderHtml(report: Report, options: HtmlOptions = {}): Promise<string> {
  const echarts = loadECharts();
  const title = options.title ?? 'volbench report';
  const sections = report.groups.map((group) => {
    const charts = groupCharts(group).map((c) => figureHtml(echarts, c)).join('\n');
    return `<section class="group"><h2>${escapeHtml(group.title)}</h2>`
      + `<div class="scroll">${tableHtml(groupTable(group), 'report')}</div>`
      + `<p class="prices">${escapeHtml(pricesLine(report))}</p>\n${charts}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>Generated ${escapeHtml(report.generated_at)}.</p>
${sections.join('\n')}
</body></html>
`;
}
