/** Fixture pieces several test files share: the callers every admin route is tried with. */

export const ADMIN_KEY = 'sk-test-admin';
export const MEMBER_KEY = 'sk-test-member';
export const DEACTIVATED_ADMIN_KEY = 'sk-test-deactivated-admin';

export const consoleUsers = [
  {
    id: 1,
    email: 'ada@example.com',
    username: 'ada',
    role: 'admin',
    active: true,
    subject: 'sub-ada',
    apiKeys: [ADMIN_KEY],
  },
  {
    id: 2,
    email: 'bob@example.com',
    username: 'bob',
    role: 'member',
    active: true,
    subject: 'sub-bob',
    apiKeys: [MEMBER_KEY],
  },
  {
    id: 3,
    email: 'carol@example.com',
    username: 'carol',
    role: 'admin',
    active: false,
    subject: 'sub-carol',
    apiKeys: [DEACTIVATED_ADMIN_KEY],
  },
];
