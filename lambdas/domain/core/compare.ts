/** Orders strings by their UTF-16 code units, as Go's `<` on strings and `Array.prototype.sort` do (not by locale). */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
