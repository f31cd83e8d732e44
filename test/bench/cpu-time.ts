/** The result of `work` and the CPU milliseconds this thread spent on it (synchronous work only). */
export function cpuMs<T>(work: () => T): [T, number] {
  const before = process.cpuUsage();
  const result = work();
  const used = process.cpuUsage(before);
  return [result, (used.user + used.system) / 1000];
}
