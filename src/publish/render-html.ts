/**
 * The report as one self-contained HTML file: the tables, and every chart as inline SVG drawn
 * by ECharts' server-side renderer, each with the table it was drawn from beside it (so the
 * page reads with images off). No script, no external style, font or image: a
 * Content-Security-Policy forbids the page any request at all.
 */
import { createRequire } from 'node:module';

import type { Report, ReportGroup } from './model.js';
import { CHART_HEIGHT, CHART_WIDTH, groupCharts, type ChartOption, type ReportChart } from './charts.js';
import { FLAG_LEGEND, groupTable, hasFlags, leadingCount, type TextTable } from './table.js';
import { openingLines, pricesLine, verdictLines } from './render-text.js';
import type { ThroughputUnit } from './units.js';

export { CHART_HEIGHT, CHART_WIDTH };

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The label column's width, and each price/performance column's after it: they stay in view as the table scrolls. */
const LABEL_EM = 15;
const LEAD_EM = 8;

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:separate;border-spacing:0;margin:.5em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap;background:#fff}
th:first-child,td:first-child{text-align:left}
.scroll{overflow:auto;max-width:100%;max-height:80vh}
table.report thead th{position:sticky;top:0;z-index:2;background:#f4f4f4;white-space:normal;vertical-align:bottom}
table.report .lead{position:sticky;z-index:1;white-space:normal;box-sizing:border-box;min-width:${LEAD_EM}em;max-width:${LEAD_EM}em}
table.report thead .lead{z-index:3}
table.report .lead.label{min-width:${LABEL_EM}em;max-width:${LABEL_EM}em;left:0;overflow-wrap:anywhere;overflow:hidden}
table.report .lead.last{box-shadow:3px 0 3px -2px #999}
.verdicts{background:#f3f8f3;border-left:4px solid #2a7a2a;padding:.3em 1em;margin:1em 0}
.verdicts li{margin:.2em 0}
.charts{display:flex;flex-wrap:wrap;gap:1em}
figure.chart{margin:.5em 0;border-top:1px solid #eee;padding-top:.5em}
figure.chart .data{max-height:${CHART_HEIGHT}px;overflow:auto}
figure.chart .data table{margin:0}
figure.chart details summary{cursor:pointer;color:#555}
details.detail>summary{cursor:pointer;font-weight:600;margin:1em 0}
.prices,.source,.context{color:#555;font-size:90%}
.banner{background:#fff4d6;border-left:4px solid #c90;padding:.4em 1em;font-weight:600}
.svg-download{font-size:90%}
td.failed,td.cancelled{color:#b00}
td.flagged{color:#a60;font-weight:600}
`;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The class and inline offset of a leading (sticky) column, or nothing past them. */
function leadAttrs(i: number, lead: number): string {
  if (i >= lead) return '';
  const left = i === 0 ? 0 : LABEL_EM + (i - 1) * LEAD_EM;
  return ` class="lead${i === 0 ? ' label' : ''}${i === lead - 1 ? ' last' : ''}" style="left:${left}em"`;
}

/** A table; its first `lead` columns stay in view as it scrolls sideways. */
export function tableHtml(t: TextTable, className = '', lead = 0): string {
  const head = `<thead><tr>${t.header.map((h, i) => `<th scope="col"${leadAttrs(i, lead)}>${escapeHtml(h)}</th>`).join('')}</tr></thead>`;
  const body = t.rows.map((r) => `<tr>${r.map((c, i) => {
    const state = c === 'failed' || c === 'cancelled' ? c : c.includes(' ⚑') ? 'flagged' : '';
    const attrs = i < lead ? leadAttrs(i, lead) : state ? ` class="${state}"` : '';
    return i === 0 ? `<th scope="row"${attrs}>${escapeHtml(c)}</th>` : `<td${attrs}>${escapeHtml(c)}</td>`;
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

function svgOf(echarts: EChartsModule, option: ChartOption, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** A file name for a chart's download: its title's words. */
function fileName(title: string): string {
  return `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'chart'}.svg`;
}

function figureHtml(echarts: EChartsModule, chart: ReportChart): string {
  const svg = svgOf(echarts, chart.option, chart.width, chart.height);
  // The chart as a file of its own (its title and source line are drawn in it), for a slide.
  const href = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  return `<figure class="chart" data-kind="${escapeHtml(chart.kind)}">`
    + `<div class="svg" role="img" aria-label="${escapeHtml(chart.title)}">${svg}</div>`
    + `<figcaption>${escapeHtml(chart.title)} · <a class="svg-download" download="${escapeHtml(fileName(chart.title))}" href="${href}">Download SVG</a></figcaption>`
    + `<details><summary>Data</summary><div class="data">${tableHtml(chart.table, 'chart-data')}</div></details></figure>`;
}

export interface HtmlOptions {
  title?: string;
  units?: ThroughputUnit;
}

function groupHtml(echarts: EChartsModule, report: Report, group: ReportGroup, options: HtmlOptions): string {
  const source = `${report.title}, ${report.generated_at.slice(0, 10)}. ${pricesLine(report)}`;
  const charts = groupCharts(group, { units: options.units, source });
  const main = charts.filter((c) => !c.detail).map((c) => figureHtml(echarts, c)).join('\n');
  const detail = charts.filter((c) => c.detail);
  const folded = detail.length === 0 ? ''
    : `<details class="detail"><summary>Per-second series and latency percentiles (${detail.length} chart${detail.length === 1 ? '' : 's'})</summary>`
      + `<div class="charts">${detail.map((c) => figureHtml(echarts, c)).join('\n')}</div></details>`;
  return `<section class="group"><h2>${escapeHtml(group.title)}</h2>`
    + `<div class="scroll">${tableHtml(groupTable(group, options), 'report', leadingCount(group))}</div>`
    + `${hasFlags(group) ? `<p class="legend">${escapeHtml(FLAG_LEGEND)}</p>` : ''}`
    + `<p class="prices">${escapeHtml(pricesLine(report))}</p>\n<div class="charts">${main}</div>${folded}</section>`;
}

export async function renderHtml(report: Report, options: HtmlOptions = {}): Promise<string> {
  const echarts = loadECharts();
  const title = options.title ?? report.title;
  const open = openingLines(report);
  const opening = (open.banner ? `<p class="banner">${escapeHtml(open.banner)}</p>\n` : '')
    + (open.context ? `<p class="context">${escapeHtml(open.context)}</p>\n` : '')
    + (open.note ? `<p class="context">${escapeHtml(open.note)}</p>\n` : '');
  const sections = report.groups.map((group) => groupHtml(echarts, report, group, options));
  const verdicts = verdictLines(report, options);
  const verdictHtml = verdicts.length === 0 ? ''
    : `<section class="verdicts"><h2>Verdict</h2><ul>${verdicts.map((v) => `<li>${escapeHtml(v)}</li>`).join('')}</ul></section>\n`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${opening}<p class="context">Generated ${escapeHtml(report.generated_at)}.</p>
${verdictHtml}${sections.join('\n')}
</body></html>
`;
}
