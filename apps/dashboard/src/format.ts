// How amounts and times are written. Amounts stay the decimal strings the API sends (never a binary
// float: no rounding, no lost digits), with their asset; times are shown in the viewer's zone, with UTC
// in the title (on hover and to screen readers that read titles).

/** "1234.50" with "usdc": "1,234.50 USDC": grouping added to the integer digits, the fraction as sent. */
export function formatAmount(amount: string | null | undefined, asset?: string | null): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const match = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  const text = match ? `${match[1]}${match[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${match[3] ?? ''}` : amount;
  return asset ? `${text} ${asset.toUpperCase()}` : text;
}

export function formatLocalTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

export function formatUtc(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : `${date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, '')} UTC`;
}
