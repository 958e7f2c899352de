/**
 * The message a bulk-imported record's `email` receives: who asks, the hosted link, and until when
 * it works. German for a session whose locale is German, English otherwise (the hosted pages' two
 * languages).
 */
export function bulkImportMail(m: { tenantName: string; url: string; locale: string | null; expiresAt: Date }): { subject: string; text: string } {
  const who = m.tenantName || 'A service you use';
  if (m.locale?.toLowerCase().startsWith('de')) {
    const until = m.expiresAt.toLocaleString('de-DE', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });
    return {
      subject: `${who}: Bitte bestätigen Sie Ihre Identität`,
      text: `${who} bittet Sie, Ihre Identität zu bestätigen.\n\nÖffnen Sie diesen Link, um zu beginnen:\n${m.url}\n\nDer Link gilt bis ${until} (UTC).\n`,
    };
  }
  const until = m.expiresAt.toLocaleString('en-US', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });
  return {
    subject: `${who}: please verify your identity`,
    text: `${who} asks you to verify your identity.\n\nOpen this link to start:\n${m.url}\n\nThe link works until ${until} (UTC).\n`,
  };
}
