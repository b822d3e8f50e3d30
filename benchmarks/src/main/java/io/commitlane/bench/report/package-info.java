/**
 * Writing results: {@link io.commitlane.bench.report.MarkdownTable} (every Markdown table the commands print),
 * {@link io.commitlane.bench.report.Json}, {@link io.commitlane.bench.report.ChartWriter}, the run header with
 * {@link io.commitlane.bench.report.MachineInfo}, number formatting ({@link io.commitlane.bench.report.Units}) and the
 * results directory.
 */
package io.commitlane.bench.report;
