/** nft's time format (`3h`, `1m30s`, `1d2h`): units d, h, m, s, zero parts left out. */
export function formatNftTime(seconds: number): string {
  if (seconds === 0) return "0s";
  let rest = seconds;
  let out = "";
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}
