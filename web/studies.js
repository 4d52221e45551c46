/*
 * Studies in the web view: the list of the service's studies, and one study live (each member's
 * stack, its test and progress, the ETA, from the study's event stream), its report once done
 * (the verdicts and the context line as the report says them, then the report itself), and
 * Cancel. The study routes take the study token, asked for here and kept in sessionStorage;
 * text from the service is set as text, never as HTML.
 */
import { $, api, el, fmtDuration, follow, setStudyToken, studyToken, StudyAuthError } from './common.js';

const REFRESH_MS = 5000;
const ENDED = ['done', 'failed'];

function money(usd) {
  return typeof usd === 'number' ? `$${usd.toFixed(2)}` : '';
}

/** Asks for the study token; `then` once one was given and taken. */
function askToken(then) {
  $('#study-login').hidden = false;
  $('#studies-table').hidden = true;
  $('#study-login').onsubmit = (event) => {
    event.preventDefault();
    setStudyToken($('#study-token').value);
    $('#study-token').value = '';
    $('#study-login-error').textContent = '';
    then();
  };
}

/** What a failed call says on the studies page: the token again, studies off, or the error. */
function studyFail(err, again, fail) {
  if (err instanceof StudyAuthError) {
    $('#study-login-error').textContent = studyToken() === null && err.message ? `${err.message}: give the study token` : '';
    askToken(again);
    return;
  }
  if (err && err.status === 403) {
    $('#studies-off').hidden = false;
    $('#studies-off').textContent = err.message;
    return;
  }
  fail(err);
}

function studyRow(s) {
  return el('tr', { 'data-study': s.id, 'data-step': s.step }, [
    el('td', {}, [el('a', { href: `#/studies/${encodeURIComponent(s.id)}`, text: s.id })]),
    el('td', { className: `step-${s.step}`, text: s.step }),
    el('td', { text: s.volumes.join(', ') }),
    el('td', { text: s.instance_type || '' }),
    el('td', { text: s.region }),
    el('td', { className: 'num', text: money(s.estimated_usd) }),
    el('td', { text: s.created_at }),
  ]);
}

export function showStudies(page, show) {
  show('studies');
  document.title = 'volbench studies';
  const load = async () => {
    if (!studyToken()) {
      askToken(run);
      return;
    }
    const list = await (await api('/v1/studies?limit=50')).json();
    $('#study-login').hidden = true;
    $('#studies-table').hidden = false;
    $('#studies-table tbody').replaceChildren(...list.studies.map(studyRow));
  };
  function run() {
    load().catch((err) => studyFail(err, run, page.fail));
  }
  run();
  const timer = setInterval(() => {
    if (!document.hidden && page.current() && studyToken()) run();
  }, REFRESH_MS);
  page.onLeave(() => clearInterval(timer));
}

function memberRow(m) {
  const p = m.progress;
  const now = m.error ? m.error : m.done ? `done: ${m.done.status}` : p ? `${p.step}${p.test ? ` ${p.test}` : ''}${p.test_index && p.tests_total ? ` (${p.test_index}/${p.tests_total})` : ''}` : '';
  const bar = el('progress', { max: '100' });
  bar.value = m.done ? 100 : (p?.percent ?? 0);
  return el('tr', { 'data-member': m.label }, [
    el('th', { scope: 'row', text: m.label }),
    el('td', { text: m.volume }),
    el('td', { text: m.stack }),
    el('td', { className: m.error ? 'error' : '', text: now }),
    el('td', {}, [bar, el('span', { text: ` ${Math.round(m.done ? 100 : (p?.percent ?? 0))}%` })]),
    el('td', { text: !m.done && p?.eta_s !== undefined ? fmtDuration(p.eta_s * 1000) : '' }),
    el('td', { className: 'num', text: p?.iops !== undefined && !m.done ? Math.round(p.iops).toLocaleString('en-US') : '' }),
    el('td', { text: m.collected ? 'collected' : '' }),
  ]);
}

function render(study) {
  $('#study-title').textContent = `Study ${study.id}: ${study.step}`;
  $('#study-title').className = `step-${study.step}`;
  document.title = `${$('#study-title').textContent} · volbench`;
  $('#study-facts').textContent = `${study.members.length} × ${study.instance_type} in ${study.region}` +
    `${study.estimated_usd !== undefined ? `, estimated ${money(study.estimated_usd)}` : ''}${study.expires_at ? `; AWS deletes it by ${study.expires_at}` : ''}`;
  $('#study-progress').value = study.percent ?? 0;
  $('#study-eta').textContent = study.eta_s !== undefined ? `${Math.round(study.percent ?? 0)}% done, about ${fmtDuration(study.eta_s * 1000)} left` : ENDED.includes(study.step) ? '' : study.step;
  $('#study-failure').hidden = !study.failure;
  $('#study-failure').textContent = study.failure ? `Failed: ${study.failure}` : '';
  $('#study-actions').hidden = ENDED.includes(study.step) || study.step === 'tearing-down';
  $('#study-members tbody').replaceChildren(...study.members.map(memberRow));
}

/** The report once collected: the verdicts and the context line as the report words them, then the report. */
async function showStudyReport(id) {
  const path = (format) => `/v1/studies/${encodeURIComponent(id)}/report?format=${format}`;
  const json = await (await api(path('json'))).json();
  const lines = json.lines || {};
  $('#study-banner').hidden = !lines.banner;
  $('#study-banner').textContent = lines.banner || '';
  $('#study-context').textContent = lines.context || '';
  $('#study-verdicts').replaceChildren(...(lines.verdicts || []).map((v) => el('li', { text: v })));
  const html = await (await api(path('html'))).text();
  const frame = el('iframe', { sandbox: '', title: 'report' });
  frame.srcdoc = html;
  $('#study-report .report-area').replaceChildren(frame);
  $('#study-report').hidden = false;
}

export async function showStudy(id, page, show) {
  show('study');
  $('#study-report').hidden = true;
  $('#study-members tbody').replaceChildren();
  $('#study-cancel-state').textContent = '';
  if (!studyToken()) {
    show('studies');
    askToken(() => { location.hash = `#/studies/${encodeURIComponent(id)}`; showStudy(id, page, show).catch(page.fail); });
    return;
  }
  let study = await (await api(`/v1/studies/${encodeURIComponent(id)}`)).json();
  if (!page.current()) return;
  render(study);
  $('#study-cancel').onclick = async () => {
    $('#study-cancel').disabled = true;
    try {
      study = await (await api(`/v1/studies/${encodeURIComponent(id)}`, { method: 'DELETE' })).json();
      $('#study-cancel-state').textContent = 'cancelled: tearing down';
      render(study);
    } catch (err) {
      $('#study-cancel-state').textContent = `cancel failed: ${err.message}`;
    } finally {
      $('#study-cancel').disabled = false;
    }
  };
  if (!ENDED.includes(study.step)) {
    await follow(id, page.signal, (type, data) => {
      if (type === 'study') {
        study = data;
        render(study);
      }
    }, 'studies').catch((err) => {
      if (err.name !== 'AbortError') throw err;
    });
    if (!page.current()) return;
    study = await (await api(`/v1/studies/${encodeURIComponent(id)}`)).json();
    render(study);
  }
  if (study.members.some((m) => m.collected)) await showStudyReport(id);
}

export { studyFail };
