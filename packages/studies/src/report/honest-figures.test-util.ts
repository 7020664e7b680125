// The honest-figures rule, checked on a study's report as --json writes it: every summary figure says whether it was
// measured, modelled (with its calibration) or quoted (with its section), in the JSON, the terminal table and the HTML.
import { expect } from "vitest";
import { renderHtmlReport } from "./html-report.js";
import { FIGURE_KINDS, formatSummaryTable, type StudyReport } from "./study-report.js";

/** Asserts the rule on `report` (as `JSON.stringify` writes it for --json) and returns the count of rows per kind. */
export function expectHonestFigures(report: StudyReport): Record<string, number> {
  const json = JSON.parse(JSON.stringify(report)) as { summary: Record<string, unknown>[] };
  expect(json.summary.length).toBeGreaterThan(0);
  const kinds: Record<string, number> = {};
  for (const row of json.summary) {
    expect(FIGURE_KINDS, JSON.stringify(row)).toContain(row.figure);
    if (row.figure !== "measured")
      expect(typeof row.source === "string" && row.source !== "", JSON.stringify(row)).toBe(true);
    kinds[String(row.figure)] = (kinds[String(row.figure)] ?? 0) + 1;
  }
  const table = formatSummaryTable(report.summary);
  expect(table.split("\n")[0]).toMatch(/write-up\s+figure\s+kind$/);
  for (const k of Object.keys(kinds)) expect(table).toContain(k);
  const html = renderHtmlReport(report);
  expect(html.match(/<td data-figure="(measured|modelled|quoted)">/g)?.length).toBe(report.summary.length);
  return kinds;
}
