/*
 * What every page of the web view shares: the token (kept in sessionStorage), calls to the
 * service's API, the run's event stream, building elements (text is always set as text, never
 * as HTML), and number formats.
 */

const TOKEN_KEY = 'volbench-token';

export const $ = (sel) => document.querySelector(sel);

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, value);
}

export class AuthError extends Error {}

const STUDY_TOKEN_KEY = 'volbench-study-token';

/** The study routes' token (not the run token): studies spend money. */
export function studyToken() {
  return sessionStorage.getItem(STUDY_TOKEN_KEY);
}

export function setStudyToken(value) {
  if (value === null) sessionStorage.removeItem(STUDY_TOKEN_KEY);
  else sessionStorage.setItem(STUDY_TOKEN_KEY, value);
}

/** Raised when the study token is missing or refused: the studies page asks for it again. */
export class StudyAuthError extends Error {}

const isStudyPath = (path) => path === '/v1/studies' || path.startsWith('/v1/studies/') || path.startsWith('/v1/studies?');

/** A call to the API with the token (the study token for /v1/studies); a problem answer becomes an Error with its detail. */
export async function api(path, init = {}) {
  const study = isStudyPath(path);
  const res = await fetch(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${study ? studyToken() : token()}` } });
  if (res.status === 401 && study) {
    setStudyToken(null);
    throw new StudyAuthError('the study token was refused');
  }
  if (res.status === 401) {
    setToken(null);
    throw new AuthError('the token was refused');
  }
  if (!res.ok) {
    let detail = `${res.status}`;
    try {
      detail = (await res.json()).detail || detail;
    } catch {
      // Not a problem document.
    }
    const err = new Error(detail);
    err.status = res.status;
    throw err;
  }
  return res;
}

/**
 * Reads a run's Server-Sent Events (with fetch, so that the token goes in a header) until the
 * run ends or `signal` aborts; from the start, so a page opened mid-run gets every point.
 */
export async function follow(id, signal, onEvent, kind = 'runs') {
  const bearer = kind === 'studies' ? studyToken() : token();
  const res = await fetch(`/v1/${kind}/${encodeURIComponent(id)}/events`, { headers: { authorization: `Bearer ${bearer}` }, signal });
  if (!res.ok || !res.body) throw new Error(`events: ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let type = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) type = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data) onEvent(type, JSON.parse(data));
    }
  }
}

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'text') node.textContent = v;
    else if (k === 'className') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/** Saves text as a file the browser downloads. */
export function saveAs(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const ENDED = ['finished', 'failed', 'cancelled'];

const MIB = 1024 * 1024;

export function fmtInt(n) {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtMiBps(bytesPerSec) {
  const mib = bytesPerSec / MIB;
  return `${mib.toFixed(mib >= 100 ? 0 : 1)} MiB/s`;
}

/** A size: 512 MiB, 4.0 GiB. */
export function fmtBytes(bytes) {
  const gib = bytes / (1024 * MIB);
  return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${Math.round(bytes / MIB)} MiB`;
}

/** A latency in ns as fio would say it: 812 µs, 1.25 ms. */
export function fmtTimeNs(ns) {
  if (!(ns > 0)) return '–';
  if (ns < 1e3) return `${Math.round(ns)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 1 : 0)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

export function fmtDuration(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m ${sec}s` : `${m}m ${sec}s`;
}
