import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, withExample } from '../../../platform/http/schema-helpers.ts';

// The form is the merchant's authority's (checked against its profile by the routes' hook).
const tpin = (description: string) => Type.String({ minLength: 1, maxLength: 20, description });

const VERIFICATION_STATES = ['not_applicable', 'pending', 'verified', 'unknown', 'failed'] as const;
const REGISTRATION_STATES = ['not_applicable', 'pending', 'registered', 'failed'] as const;

// ---- requests ----

export const CreateCustomerBody = withExample(
  Type.Object(
    {
      name: Type.String({
        minLength: 1,
        maxLength: 60,
        description: 'As it should appear on invoices (the authority keeps 60 characters)',
      }),
      tpin: Type.Optional(
        Nullable(
          tpin(
            "Taxpayer id in the merchant's authority's form (ZRA: 10 digits; KRA: a PIN such as P051234567X). With a TPIN the customer is verified and registered with the authority; without, it is a local record",
          ),
        ),
      ),
      address: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
      phone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 30 }))),
      email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
    },
    { additionalProperties: false },
  ),
  {
    name: 'Zambezi Agro Dealers',
    tpin: '2000000003',
    address: 'Mosi-oa-Tunya Road, Livingstone',
    phone: '+260 97 1234567',
    email: 'accounts@example.com',
  },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const ListCustomersQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1; 20 items a page.' }),
  tpin: Type.Optional(tpin('Exact taxpayer id')),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'Part of the name, any case' })),
});
export type ListCustomersQuery = Static<typeof ListCustomersQuery>;

export const CustomerParam = Type.Object({ customer: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

// ---- responses ----

const Retry = {
  nextAttemptAt: Nullable(Timestamp('While pending: when the gateway tries the VSDC again')),
  lastError: Nullable(Type.String({ description: 'While pending: why the last attempt did not get an answer' })),
};

export const Customer = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  tpin: Nullable(Type.String()),
  address: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  email: Nullable(Type.String()),
  branch: Nullable(Type.String({ description: 'The branch (bhfId) whose customer list it is registered on; null for a local record' })),
  verification: Type.Object(
    {
      state: Type.Enum(VERIFICATION_STATES),
      authorityName: Nullable(Type.String({ description: 'The name the authority holds for the TPIN, once verified' })),
      authorityAddress: Nullable(Type.String()),
      resultCode: Nullable(Type.String({ description: "The authority's result code of the last answer" })),
      message: Nullable(Type.String({ description: "The authority's text when failed" })),
      checkedAt: Nullable(Timestamp()),
      ...Retry,
    },
    { description: 'What the authority says about the TPIN' },
  ),
  registration: Type.Object(
    {
      state: Type.Enum(REGISTRATION_STATES),
      resultCode: Nullable(Type.String()),
      message: Nullable(Type.String({ description: "The authority's text when failed" })),
      registeredAt: Nullable(Timestamp()),
      ...Retry,
    },
    { description: "Whether the authority accepted the customer onto the branch's list" },
  ),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
});
export type CustomerResource = Static<typeof Customer>;
