/**
 * A small line chart as hand-written SVG text (no dependency): log-scaled x and y axes, one
 * series per line with its own colour and dash, optional horizontal target lines, a legend.
 */

export interface Series {
  label: string;
  color: string;
  dash?: string;
  points: { x: number; y: number }[];
}

export interface TargetLine {
  y: number;
  label: string;
  color: string;
}

export interface LogLogChart {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  targets?: TargetLine[];
  formatX?: (x: number) => string;
}

const W = 760;
const H = 460;
const M = { left: 64, right: 220, top: 56, bottom: 52 };

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** 1, 2, 5 × powers of ten between lo and hi. */
function ticks125(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

const fmtMs = (v: number) => (v >= 1 ? String(Math.round(v * 100) / 100) : v.toPrecision(1));

export function logLogChart(chart: LogLogChart): string {
  const pts = chart.series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  const ys = [...pts.map((p) => p.y), ...(chart.targets ?? []).map((t) => t.y)];
  const xs = pts.map((p) => p.x);
  const xMin = Math.min(...xs) / 1.6;
  const xMax = Math.max(...xs) * 1.6;
  const yMin = 10 ** Math.floor(Math.log10(Math.min(...ys)));
  const yMax = 10 ** Math.ceil(Math.log10(Math.max(...ys)));
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const px = (x: number) =>
    M.left + ((Math.log10(x) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * pw;
  const py = (y: number) =>
    M.top + ph - ((Math.log10(y) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * ph;
  const r = (n: number) => Math.round(n * 10) / 10;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">${esc(chart.title)}</text>`,
  );
  if (chart.subtitle) {
    out.push(`<text x="${M.left}" y="42" fill="#555">${esc(chart.subtitle)}</text>`);
  }
  // Grid and y ticks.
  for (const v of ticks125(yMin, yMax)) {
    const y = r(py(v));
    const major = Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
    out.push(
      `<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="${major ? '#ccc' : '#eee'}"/>`,
      `<text x="${M.left - 6}" y="${y + 4}" text-anchor="end" fill="#333">${fmtMs(v)}</text>`,
    );
  }
  // x ticks at the measured sizes.
  const fx = chart.formatX ?? ((x: number) => String(x));
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    const X = r(px(x));
    out.push(
      `<line x1="${X}" y1="${M.top}" x2="${X}" y2="${M.top + ph}" stroke="#eee"/>`,
      `<text x="${X}" y="${M.top + ph + 18}" text-anchor="middle" fill="#333">${esc(fx(x))}</text>`,
    );
  }
  out.push(
    `<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`,
    `<text x="${M.left + pw / 2}" y="${H - 12}" text-anchor="middle">${esc(chart.xLabel)}</text>`,
    `<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(chart.yLabel)}</text>`,
  );
  for (const t of chart.targets ?? []) {
    const y = r(py(t.y));
    out.push(
      `<line x1="${M.left}" y1="${y}" x2="${M.left + pw}" y2="${y}" stroke="${t.color}" stroke-width="1.5" stroke-dasharray="2 4"/>`,
      `<text x="${M.left + pw - 4}" y="${y - 4}" text-anchor="end" fill="${t.color}">${esc(t.label)}</text>`,
    );
  }
  for (const s of chart.series) {
    const p = s.points.filter((q) => q.x > 0 && q.y > 0).sort((a, b) => a.x - b.x);
    if (p.length === 0) continue;
    const d = p.map((q, i) => `${i === 0 ? 'M' : 'L'}${r(px(q.x))} ${r(py(q.y))}`).join(' ');
    out.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      ...p.map(
        (q) =>
          `<circle cx="${r(px(q.x))}" cy="${r(py(q.y))}" r="3.5" fill="${s.color}"><title>${esc(`${s.label}: ${fmtMs(q.y)} ms at ${fx(q.x)}`)}</title></circle>`,
      ),
    );
  }
  // Legend.
  const lx = M.left + pw + 16;
  chart.series.forEach((s, i) => {
    const y = M.top + 8 + i * 20;
    out.push(
      `<line x1="${lx}" y1="${y}" x2="${lx + 28}" y2="${y}" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`,
      `<circle cx="${lx + 14}" cy="${y}" r="3.5" fill="${s.color}"/>`,
      `<text x="${lx + 36}" y="${y + 4}">${esc(s.label)}</text>`,
    );
  });
  out.push('</svg>', '');
  return out.join('\n');
}
