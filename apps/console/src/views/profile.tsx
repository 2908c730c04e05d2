import { useState } from 'preact/hooks';
import type { TargetedSubmitEvent } from 'preact';
import { useLoad } from '../api.ts';
import { navigate, pathOf } from '../router.ts';
import { Badge, Field, Show, Time } from '../ui.tsx';

/** A resident profile: its fields now, how each changed, and what agents proposed. */
export function ProfileView(props: { profileId: string | null }) {
  const [id, setId] = useState(props.profileId ?? '');
  const open = (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (id.trim()) navigate(pathOf('profiles', id.trim()));
  };
  return (
    <section aria-labelledby="profile-title">
      <h1 id="profile-title">Profiles</h1>
      <form class="row" onSubmit={open}>
        <Field label="Profile id">
          <input value={id} onInput={(e) => setId(e.currentTarget.value)} required />
        </Field>
        <button type="submit">Open</button>
      </form>
      {props.profileId ? <Profile profileId={props.profileId} /> : null}
    </section>
  );
}

function Profile(props: { profileId: string }) {
  const { profileId } = props;
  const profile = useLoad((c) => c.call('getProfile', { profileId }), [profileId]);
  const history = useLoad(
    (c) => c.call('listProfileHistory', { profileId, limit: 100 }),
    [profileId],
  );
  const proposals = useLoad(
    (c) => c.call('listProfileProposals', { profileId, status: 'pending', limit: 100 }),
    [profileId],
  );
  return (
    <Show loaded={profile} what={`The profile “${profileId}”`}>
      {(p) => (
        <>
          <h2>
            <code>{p.profileId}</code> <Badge>revision {p.revision}</Badge>
          </h2>
          <table>
            <caption>Fields</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Value</th>
                <th scope="col">Used for</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(p.fields).map(([name, f]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>{f.value || <span class="muted">empty</span>}</td>
                  <td class="muted">{f.use}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h3>Pending proposals</h3>
          <Show loaded={proposals} what="the proposals">
            {(page) =>
              page.proposals.length === 0 ? (
                <p>None.</p>
              ) : (
                <ul>
                  {page.proposals.map((x) => (
                    <li key={x.proposalId}>
                      <strong>{x.field}</strong> → “{x.value}” ({x.reason ?? 'no reason given'}),
                      proposed <Time at={x.proposedAt} /> in {x.spaceId}/{x.threadId}
                    </li>
                  ))}
                </ul>
              )
            }
          </Show>
          <h3>History</h3>
          <Show loaded={history} what="the history">
            {(page) =>
              page.changes.length === 0 ? (
                <p>No changes yet.</p>
              ) : (
                <ol class="timeline">
                  {page.changes.map((c) => (
                    <li key={c.changeId}>
                      <Time at={c.updatedAt} />: <strong>{c.field}</strong> “{c.oldValue}” → “
                      {c.newValue}” <Badge>{c.source}</Badge>
                    </li>
                  ))}
                </ol>
              )
            }
          </Show>
        </>
      )}
    </Show>
  );
}
