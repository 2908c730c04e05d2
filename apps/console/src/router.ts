import { useEffect, useState } from 'preact/hooks';

/** The console's own paths live under this prefix; the server answers index.html for them. */
export const BASE = '/console';

const current = () => {
  const path = window.location.pathname;
  return path.startsWith(BASE) ? path.slice(BASE.length) || '/' : '/';
};

export function navigate(path: string): void {
  window.history.pushState(null, '', BASE + path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The path after /console, split in decoded segments; re-renders on navigation. */
export function useRoute(): string[] {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const onPop = () => setPath(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return path
    .split('/')
    .filter(Boolean)
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
}

export const pathOf = (...parts: string[]) => '/' + parts.map(encodeURIComponent).join('/');
