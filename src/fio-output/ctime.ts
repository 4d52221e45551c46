/**
 * ctime(3) without the newline, in the local time zone, as fio prints "time" and the job
 * header of its normal output: "Sun Nov 22 02:50:02 2026" (day of month padded to width 2).
 */
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const two = (n: number): string => String(n).padStart(2, '0');

export function ctime(ms: number): string {
  const d = new Date(ms);
  const clock = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  return `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]}${String(d.getDate()).padStart(3, ' ')} ${clock} ${d.getFullYear()}`;
}
