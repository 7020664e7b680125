// Charts a study describes as data (kept in its --json), drawn by the --report page
// before the standard workqueue charts the study asks for.
import { barChart, type ChartFrame, type LineSeries, lineChart } from "./svg-chart.js";

/** A chart as data: a line chart of series over a numeric x axis, or a grouped bar chart over categories. */
export type ReportChart =
  | { readonly kind: "line"; readonly frame: ChartFrame; readonly series: readonly LineSeries[] }
  | {
      readonly kind: "bar";
      readonly frame: ChartFrame;
      readonly categories: readonly string[];
      readonly series: readonly { readonly name: string; readonly values: readonly number[] }[];
      /** Notes printed under the legend (what a bar means, which bars are lower bounds). */
      readonly notes?: readonly string[];
    };

/** The inline SVG of a {@link ReportChart}. */
export function renderReportChart(chart: ReportChart): string {
  return chart.kind === "line"
    ? lineChart(chart.frame, chart.series)
    : barChart(chart.frame, chart.categories, chart.series, chart.notes);
}
