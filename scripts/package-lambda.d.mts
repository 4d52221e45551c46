/** The symbol versions (GLIBC_x, GLIBCXX_x) a shared object needs beyond Amazon Linux 2023's. */
export function tooNew(file: string): string[];
