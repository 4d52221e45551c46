/** Lambda's limit on a function's unzipped size, in bytes. */
export const LAMBDA_UNZIPPED_LIMIT: number;
