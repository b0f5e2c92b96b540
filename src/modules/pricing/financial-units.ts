/**
 * Currencies as APIs show them: a currency as its ISO code, English name and symbol, from the
 * runtime's Intl data. Pure; used by the Core `Currency` type and WebLink's `FinancialUnit`.
 */

export interface FinancialUnit {
  code: string;
  name: string;
  symbol: string;
}

const units = new Map<string, FinancialUnit>();

/** The currency `code` (ISO 4217) as websites show it: `GBP` is `£`, "British Pound". */
export function financialUnitOf(code: string): FinancialUnit {
  let unit = units.get(code);
  if (!unit) {
    let symbol = code;
    let name = code;
    try {
      symbol =
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).formatToParts(0).find((p) => p.type === 'currency')?.value ??
        code;
      name = new Intl.DisplayNames(['en'], { type: 'currency' }).of(code) ?? code;
    } catch {
      // Not a currency Intl knows: its code stands for it.
    }
    unit = { code, name, symbol };
    units.set(code, unit);
  }
  return unit;
}

let known: readonly FinancialUnit[] | undefined;

/** Every ISO 4217 currency the runtime knows, by code, with its English name and symbol. */
export function knownCurrencies(): readonly FinancialUnit[] {
  return (known ??= Intl.supportedValuesOf('currency')
    .filter((code) => /^[A-Z]{3}$/.test(code))
    .sort()
    .map(financialUnitOf));
}
