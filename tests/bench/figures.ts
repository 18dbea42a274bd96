/**
 * One measured figure as `npm run bench` reports it: the figure, the baseline run beside it in the
 * same run, their ratio, the goal and whether it is met. Each is printed as it is measured and, when
 * the runner (run.ts) names a file in BENCH_FIGURES, appended there as a JSON line for its summary.
 */
import { appendFileSync } from 'node:fs';

export interface Figure {
  /** What was measured, with its unit: "HTTP path import (ms)". */
  figure: string;
  value: number;
  /** What the same run measured as the physical floor of the figure, and its value. */
  baseline: { what: string; value: number } | null;
  /** The goal, in words ("<= 300 ms", ">= 0.5x"), and whether the value meets it. */
  goal: string;
  met: boolean | null;
}

const round = (n: number) => (Math.abs(n) >= 100 ? Math.round(n).toString() : n.toPrecision(3));

export function ratioOf(figure: Figure): number | null {
  return figure.baseline && figure.baseline.value !== 0 ? figure.value / figure.baseline.value : null;
}

export function report(figure: Figure): void {
  const ratio = ratioOf(figure);
  console.log(
    `  ${figure.figure}: ${round(figure.value)}` +
      (figure.baseline ? `; baseline ${figure.baseline.what}: ${round(figure.baseline.value)}` : '') +
      (ratio === null ? '' : `; ratio ${ratio.toFixed(2)}x`) +
      `; goal ${figure.goal}: ${figure.met === null ? 'n/a' : figure.met ? 'met' : 'NOT met'}`,
  );
  if (process.env.BENCH_FIGURES) appendFileSync(process.env.BENCH_FIGURES, `${JSON.stringify(figure)}\n`);
}

/** Markdown table of figures, as docs/architecture.md's "Measured" section holds them. */
export function table(figures: Figure[]): string {
  const rows = figures.map((f) => {
    const ratio = ratioOf(f);
    return `| ${f.figure} | ${round(f.value)} | ${f.baseline ? `${f.baseline.what}: ${round(f.baseline.value)}` : '—'} | ${ratio === null ? '—' : `${ratio.toFixed(2)}×`} | ${f.goal} | ${f.met === null ? '—' : f.met ? 'yes' : 'no'} |`;
  });
  return [
    '| figure | value | baseline | ratio | goal | met? |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
