/**
 * {@code ./commitlane jmh}: {@link io.commitlane.bench.jmh.JmhCommand} runs the JMH micro-benchmarks of benchmarks-jmh.
 */
package io.commitlane.bench.jmh;
