/*
 * The service's report of one or more runs: its HTML shown in a frame that runs no script, and
 * downloads of its HTML, Markdown and CSV.
 */
import { api, el, saveAs } from './common.js';

const FORMATS = [['html', 'HTML'], ['md', 'Markdown'], ['csv', 'CSV']];

export function reportPath(runs, format) {
  const q = new URLSearchParams(runs.map((id) => ['run', id]));
  q.set('format', format);
  return `/v1/report?${q}`;
}

export async function showReport(area, runs, onError) {
  const buttons = FORMATS.map(([format, label]) => {
    const b = el('button', { type: 'button', 'data-format': format, text: `Download ${label}` });
    b.addEventListener('click', () => {
      api(reportPath(runs, format)).then((r) => r.blob()).then((blob) => saveAs(`volbench-report.${format}`, blob), onError);
    });
    return b;
  });
  const html = await (await api(reportPath(runs, 'html'))).text();
  const frame = el('iframe', { sandbox: '', title: 'report' });
  frame.srcdoc = html;
  area.replaceChildren(el('p', { className: 'downloads' }, buttons), frame);
}
