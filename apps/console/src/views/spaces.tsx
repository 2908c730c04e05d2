import { useLoad } from '../api.ts';
import { pathOf } from '../router.ts';
import { Link, Show } from '../ui.tsx';

export function SpacesView() {
  const spaces = useLoad((c) => c.call('listSpaces', { limit: 200 }), []);
  return (
    <section aria-labelledby="spaces-title">
      <h1 id="spaces-title">Spaces</h1>
      <Show loaded={spaces} what="your spaces">
        {(page) =>
          page.spaces.length === 0 ? (
            <p>No spaces yet: an agent makes one with its first turn.</p>
          ) : (
            <table>
              <caption class="sr-only">The spaces of your tenant</caption>
              <thead>
                <tr>
                  <th scope="col">Space</th>
                  <th scope="col">Turns</th>
                  <th scope="col">Blocks</th>
                  <th scope="col">Block size</th>
                  <th scope="col">Fade rate (λ)</th>
                </tr>
              </thead>
              <tbody>
                {page.spaces.map((s) => (
                  <tr key={s.spaceId}>
                    <td>
                      <Link href={pathOf('spaces', s.spaceId)}>{s.spaceId}</Link>
                    </td>
                    <td>{s.turnCounter}</td>
                    <td>{s.blockCount}</td>
                    <td>{s.blockSize}</td>
                    <td>{s.decayLambda}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}
