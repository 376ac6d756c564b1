// The sandbox: the project's clock (read, and advanced from any page by the header's control) and the
// simulation routes as forms. Production answers these routes 404: the clock control then stays hidden.
import { useEffect, useState } from 'preact/hooks';
import { ApiProblem, get, post } from '../api';
import { useAction, useResource } from '../hooks';
import { Loaded, ProblemNote, Time } from '../ui';

export function ClockControl() {
  const clock = useResource(
    () =>
      get('/v0.13/sandbox/clock').catch((e: unknown) =>
        e instanceof ApiProblem && e.status === 404 ? null : Promise.reject(e),
      ),
    [],
  );
  const [seconds, setSeconds] = useState('60');
  // The clock runs at real time from its last read (real time plus its offset, docs/sandbox.md "The clock"):
  // the header ticks it forward each second from that read, and reads it again after each event.
  const [read, setRead] = useState<{ at: number; now: number }>();
  const [tick, setTick] = useState(Date.now());
  useEffect(() => {
    if (clock.data) setRead({ at: Date.now(), now: new Date(clock.data.now).getTime() });
  }, [clock.data?.now]);
  useEffect(() => {
    const timer = setInterval(() => setTick(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const shown = read ? new Date(read.now + (tick - read.at)).toISOString().replace(/\.\d+Z$/, 'Z') : undefined;
  const advance = useAction(() => post('/v0.13/sandbox/clock/advance', { body: { seconds: Number(seconds) } }));
  if (clock.data === null) return null;
  return (
    <form
      class="clock"
      aria-label="Sandbox clock"
      onSubmit={(e) => {
        e.preventDefault();
        void advance.act();
      }}
    >
      <span
        class="clock-now"
        aria-describedby="clock-hint"
        title="The project clock runs at real time from its last read, ahead by the seconds it was advanced"
      >
        Project clock: <span data-testid="project-clock">{shown ? <Time iso={shown} /> : '…'}</span>
        {clock.data && clock.data.offsetSeconds > 0 ? <small> (+{clock.data.offsetSeconds} s)</small> : null}
      </span>
      <small id="clock-hint" class="hint">
        Runs on its own at real time, ahead by the seconds you advanced it; advancing it fires what falls due.
      </small>
      <fieldset role="group">
        <input
          aria-label="Seconds to advance the clock by"
          name="seconds"
          type="number"
          min={1}
          max={31536000}
          required
          value={seconds}
          onInput={(e) => setSeconds(e.currentTarget.value)}
        />
        <button type="submit" aria-busy={advance.busy} disabled={advance.busy}>
          Advance clock
        </button>
      </fieldset>
      {advance.result && <small role="status">Advanced; {advance.result.firedTimers ?? 0} timers fired.</small>}
      {advance.error && <ProblemNote problem={advance.error} />}
    </form>
  );
}

/** One simulation route as a form: its fields, its answer (or refusal) below it. */
function SimulationForm({
  title,
  fields,
  run,
}: {
  title: string;
  fields: Array<{ name: string; label: string; placeholder?: string; required?: boolean; options?: string[] }>;
  run: (values: Record<string, string>) => Promise<unknown>;
}) {
  const [values, setValues] = useState<Record<string, string>>({});
  const action = useAction(run);
  const slug = title.replace(/\W+/g, '-').toLowerCase();
  return (
    <article>
      <form
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          void action.act(values);
        }}
      >
        <h3>{title}</h3>
        {fields.map((f) => (
          <label key={f.name} for={`${slug}-${f.name}`}>
            {f.label}
            {f.options ? (
              <select
                id={`${slug}-${f.name}`}
                name={f.name}
                required={f.required}
                value={values[f.name] ?? ''}
                onChange={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}
              >
                <option value="">choose</option>
                {f.options.map((o) => (
                  <option value={o}>{o}</option>
                ))}
              </select>
            ) : (
              <input
                id={`${slug}-${f.name}`}
                name={f.name}
                placeholder={f.placeholder}
                required={f.required}
                value={values[f.name] ?? ''}
                onInput={(e) => setValues({ ...values, [f.name]: e.currentTarget.value })}
              />
            )}
          </label>
        ))}
        <button type="submit" aria-busy={action.busy} disabled={action.busy}>
          Send
        </button>
        {action.error && <ProblemNote problem={action.error} />}
        {action.result !== undefined && (
          <>
            <p role="status">Done: the API answered</p>
            <pre tabIndex={0} aria-label={`${title}: the answer`}>
              <code>{JSON.stringify(action.result, null, 2)}</code>
            </pre>
          </>
        )}
      </form>
    </article>
  );
}

const opt = (v: string | undefined) => (v ? v : undefined);

export function Sandbox() {
  const clock = useResource(() => get('/v0.13/sandbox/clock'), []);
  return (
    <section aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">Sandbox</h2>
      <Loaded resource={clock} label="the sandbox clock">
        {(c) => (
          <p>
            The project's clock reads <Time iso={c.now} />, {c.offsetSeconds} s ahead of real time. Advance it with the
            control at the top of every page.
          </p>
        )}
      </Loaded>
      <div class="grid simulations">
        <SimulationForm
          title="Fund a wallet"
          fields={[
            { name: 'walletId', label: 'Wallet id', placeholder: 'wlt_…', required: true },
            { name: 'amount', label: 'Amount (decimal, in the wallet asset)', placeholder: '100.00', required: true },
          ]}
          run={(v) =>
            post('/v0.13/sandbox/wallets/{id}/fund', { params: { id: v.walletId }, body: { amount: v.amount } })
          }
        />
        <SimulationForm
          title="Simulate a cash deposit"
          fields={[
            { name: 'cashInId', label: 'Cash-in id', placeholder: 'ci_…', required: true },
            { name: 'amount', label: 'Amount (USD)', placeholder: '50.00', required: true },
            { name: 'code', label: 'Code (optional)' },
          ]}
          run={(v) =>
            post('/v0.13/cash-ins/{id}/simulate/deposit', {
              params: { id: v.cashInId },
              body: { amount: v.amount, code: opt(v.code) },
            })
          }
        />
        <SimulationForm
          title="Simulate a crypto deposit"
          fields={[
            { name: 'depositAddressId', label: 'Deposit address id', placeholder: 'da_…', required: true },
            { name: 'amount', label: 'Amount', placeholder: '40.00', required: true },
            { name: 'senderAddress', label: 'Sender address (optional)', placeholder: '0x…' },
          ]}
          run={(v) =>
            post('/v0.13/deposit-addresses/{id}/simulate/crypto-deposit', {
              params: { id: v.depositAddressId },
              body: { amount: v.amount, senderAddress: opt(v.senderAddress) },
            })
          }
        />
        <SimulationForm
          title="Simulate an inbound bank transfer"
          fields={[
            { name: 'virtualAccountId', label: 'Virtual account id', placeholder: 'va_…', required: true },
            { name: 'amount', label: 'Amount (USD)', placeholder: '100.00', required: true },
            { name: 'rail', label: 'Rail', options: ['ach', 'wire', 'internationalWire'] },
          ]}
          run={(v) =>
            post('/v0.13/virtual-accounts/{id}/simulate/inbound-transfer', {
              params: { id: v.virtualAccountId },
              body: { amount: v.amount, rail: opt(v.rail) as 'ach' | 'wire' | 'internationalWire' | undefined },
            })
          }
        />
        <SimulationForm
          title="Cash pickup outcome"
          fields={[
            { name: 'transactionId', label: 'Transaction id', placeholder: 'txn_…', required: true },
            { name: 'outcome', label: 'Outcome', options: ['collected', 'expired'], required: true },
          ]}
          run={(v) =>
            post('/v0.13/transactions/{id}/simulate/cash-pickup', {
              params: { id: v.transactionId },
              body: { outcome: v.outcome as 'collected' | 'expired' },
            })
          }
        />
      </div>
    </section>
  );
}
