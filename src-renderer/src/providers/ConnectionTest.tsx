import { useState } from 'react';
import type { ConnectionTestResult } from '../../../src-preload/contract/providers';
import { useClient } from '../store';
import './providers.css';

/**
 * "Test connection" for a saved provider profile: one request for one token, and the answer
 * in words beside the profile (key rejected, unreachable, model unknown, ok with latency).
 */
export function ConnectionTestButton({ name, label }: { name: string; label: string }) {
  const client = useClient();
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = () => {
    setTesting(true);
    setError(null);
    client
      .invoke('providers.testConnection', { name })
      .then(
        (r) => setResult(r),
        (e: unknown) => {
          setResult(null);
          setError(e instanceof Error ? e.message : String(e));
        },
      )
      .finally(() => setTesting(false));
  };
  const tone = result ? (result.outcome === 'ok' ? 'ok' : result.outcome === 'rate_limited' ? 'warn' : 'bad') : 'bad';
  return (
    <>
      <button className="button" onClick={run} disabled={testing} aria-label={`Test the connection of ${label}`} data-testid="test-connection">
        {testing ? 'Testing…' : 'Test connection'}
      </button>
      {(result || error) && (
        <div className={`connection-result ${tone}`} role="status" data-testid="connection-result" data-outcome={result?.outcome ?? 'error'}>
          <strong>{result ? result.headline : 'The test could not run'}</strong>
          <span className="small">{result ? result.detail : error}</span>
          <button className="link small" onClick={() => (setResult(null), setError(null))} aria-label="Dismiss the test result">
            Dismiss
          </button>
        </div>
      )}
    </>
  );
}
