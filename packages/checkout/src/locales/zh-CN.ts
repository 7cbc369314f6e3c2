/**
 * Simplified Chinese. It answers `zh` and every Simplified variant (zh-CN, zh-SG, zh-MY,
 * zh-Hans-*), not the Traditional ones (zh-TW, zh-HK, zh-MO, zh-Hant-*), whose readers are
 * not served by imposing Simplified characters: they fall through to their next preference.
 */
import type { CheckoutLocale } from './checkout-locale.js';

export const zhCN: CheckoutLocale = {
  tag: 'zh-CN',
  name: '简体中文',
  serves: ['zh'],
  unless: ['zh-hant', 'zh-tw', 'zh-hk', 'zh-mo'],
  messages: {
    'page.title': '支付 {amount} {currency}',
    'page.order': '订单 {out_trade_no}',
    'page.logo': '商户标志',
    'page.footer': '订单 {order_id} · 由 payrail 提供的托管收银台',
    'page.noscript': '此页面需要启用 JavaScript 才能选择代币并跟踪您的付款。',
    'language.label': '语言',

    amount: '{amount} {currency}',
    'facts.order_amount': '订单金额',
    'facts.pay_amount': '应付金额',
    'facts.received': '已收到',
    'facts.due': '仍需支付',
    'facts.time_left': '剩余时间',
    'facts.expires_at': '截止时间',

    'status.pending': '等待您付款',
    'status.processing': '已在网络上发现付款',
    'status.confirming': '已收到付款，等待区块确认',
    'status.partial_paid': '已收到部分付款',
    'status.completed': '付款完成',
    'status.underpaid': '订单在收到全额付款前已过期',
    'status.expired': '此订单已过期',
    'status.closed': '此订单已关闭',

    'detail.pending.choose': '请在下方选择币种和网络。',
    'detail.pending.send': '请将下方金额发送到所示地址。此页面会自动更新。',
    'detail.processing': '付款正在处理中。请保持此页面打开，它会自动更新。',
    'detail.confirming': '网络正在确认这笔付款，通常需要几分钟。',
    'detail.partial_paid': '仍需支付：{amount} {currency}。请在时间结束前发送到同一地址。',
    'detail.completed': '谢谢。商户已收到您的付款。',
    'detail.underpaid': '已收到 {paid}，应付 {due} {currency}。请就已付金额联系商户。',
    'detail.expired': '请不要向此订单的地址发送任何款项。请向商户索取新订单。',
    'detail.closed': '商户已关闭此订单。请不要付款。',

    'warning.overpaid': '您多付了 {amount} {currency}。请联系商户处理差额。',
    'warning.expiring': '剩余时间不足 {minutes} 分钟。订单过期后到账的付款需要与商户协商处理。',

    'refund.title': '退给您的款项（已申请或已发送）：{amount} {currency}',
    'refund.line': '退款 {amount} {currency}：{status}',
    'refund.status.requested': '已申请',
    'refund.status.approved': '已批准，即将发送',
    'refund.status.processing': '发送中',
    'refund.status.completed': '已发送',
    'refund.status.failed': '失败，请联系商户',
    'refund.status.rejected': '已拒绝',

    'choose.title': '选择付款方式',
    'choose.option': '{network} 上的 {currency}',
    'choose.error.final': '此订单已无法付款。',
    'choose.error.retry': '操作未成功，请重试。',

    'pay.title': '通过 {network} 发送 {amount} {currency}',
    'pay.qr': '收款地址二维码',
    'pay.address': '收款地址',
    'pay.copy': '复制',
    'pay.copied': '地址已复制。',
    'pay.copy_failed': '请选中地址并复制。',
    'pay.warning':
      '请仅通过 {network} 向此地址发送 {currency}。其他代币，或其他网络上的 {currency}，均无法入账。',
    'pay.change': '选择其他代币',

    'done.return': '返回商户',
    'done.redirecting': '{seconds} 秒后将带您返回商户。',

    'network.TRON': 'TRON (TRC-20)',
    'network.ETH': '以太坊 (ERC-20)',
    'network.BSC': 'BNB 智能链 (BEP-20)',
    'network.MATIC': 'Polygon',
    'network.ARBITRUM': 'Arbitrum One',
    'network.BASE': 'Base',
    'network.SOL': 'Solana',

    'message.reference': '告知商户的参考信息：{message}',
    'message.order_not_found.title': '未找到订单',
    'message.order_not_found.explanation': '请检查您收到的链接，或向商户索取新链接。',
    'message.checkout_url_not_found.title': '此订单没有收银台页面',
    'message.checkout_url_not_found.explanation':
      '商户已直接为此订单提供付款地址，请按商户的说明付款。',
    'message.no_address.title': '尚无付款地址',
    'message.no_address.explanation': '请先在收银台页面选择付款方式。',
    'message.failure.title': '出错了',
    'message.failure.explanation': '暂时无法显示收银台，请稍后重试。',
  },
};
